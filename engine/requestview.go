package engine

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"pathgrant/wire"
)

// agentCommand is a shell command as the agent wrote it: without the
// prefix a hook adds to run it in the client's directory, which the
// person never typed and which pushes the command out of sight. A search
// tool's recursive read (wire.TreeRead) is no command anyone wrote: with
// the tool's own input to show instead, it is not shown.
func agentCommand(req wire.CheckRequest) string {
	if req.Input != "" && wire.IsTreeRead(req.Command) {
		return ""
	}
	return wire.AgentCommand(req.Command)
}

// cleanInput makes a tool's own input safe to show: control characters
// (a terminal escape, a line that fakes another row) become spaces, and it
// is cut to wire.MaxInput bytes on a rune boundary. It is shown, never
// checked.
func cleanInput(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == utf8.RuneError {
			return ' '
		}
		return r
	}, s)
	if len(s) <= wire.MaxInput {
		return s
	}
	cut := wire.MaxInput
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
