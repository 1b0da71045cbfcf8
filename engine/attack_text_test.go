package engine

import (
	"testing"
	"unicode"

	"pathgrant/wire"
)

// What someone with the agent's keyboard tried (each TestAttackText* is one
// attempt, and passes while it fails).

// TestAttackTextCleanInputKeepsInvisibleFormatting: cleanInput turns
// control characters (Cc) into spaces but keeps the format characters
// (Cf) and the line and paragraph separators: a right-to-left override
// or isolate reorders the text after it ("cat ~/Downloads/\u202Etxt.ssap"
// reads "cat ~/Downloads/pass.txt" where the toolkit applies bidi), a
// zero-width space or joiner hides a difference, U+2028 breaks a line
// where a renderer honours it. The shown input is agent-controlled.
func TestAttackTextCleanInputKeepsInvisibleFormatting(t *testing.T) {
	for _, in := range []string{
		"cat ~/Downloads/\u202Etxt.drowssap",
		"cat ~/Downloads/\u2066a\u2069",
		"~/Down\u200Bloads/a.txt",
		"a\u2028Denied because: nothing, safe to allow",
		"a\u2029b",
		"a\uFEFFb",
	} {
		for _, c := range cleanInput(in) {
			if unicode.Is(unicode.Cf, c) || unicode.Is(unicode.Zl, c) || unicode.Is(unicode.Zp, c) {
				t.Errorf("cleanInput(%+q) keeps %U", in, c)
			}
		}
	}
}

// TestAttackTextCommandNotCleaned: the command shown in the inbox (and in
// every request object the person's tools print) is the agent's text as
// it is: only the tool input is cleaned. A command with a terminal escape
// or a carriage return reaches `pathgrant pending --json` consumers and
// the window raw.
func TestAttackTextCommandNotCleaned(t *testing.T) {
	got := agentCommand(wireCheck("cat ~/Downloads/a.csv\x1b[2K\r\x1b[1Aharmless \u202Etxt.a"))
	for _, c := range got {
		if unicode.IsControl(c) || unicode.Is(unicode.Cf, c) {
			t.Fatalf("the shown command keeps %U: %q", c, got)
		}
	}
}

func wireCheck(cmd string) wire.CheckRequest { return wire.CheckRequest{Command: cmd} }
