package prompt

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"pathgrant/guard"
	"pathgrant/wire"
)

// TestWrapPath: a long path breaks only after a separator, every line
// fits, and joined again the lines are the path.
func TestWrapPath(t *testing.T) {
	tests := []struct {
		name, path string
		cols       int
		want       string
	}{
		{"short", "~/Downloads/a.csv", 40, "~/Downloads/a.csv"},
		{"at separators", "~/Downloads/quarterly-reports/2026/summary.csv", 30,
			"~/Downloads/quarterly-reports/\n2026/summary.csv"},
		{"a long name at its dashes", "~/Downloads/quarterly-reports/2026/a-very-long-file-name-that-wraps.csv", 24,
			"~/Downloads/\nquarterly-reports/2026/\na-very-long-file-name-\nthat-wraps.csv"},
		{"no break left", "/x/" + strings.Repeat("a", 20), 10, "/x/\naaaaaaaaaa\naaaaaaaaaa"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := WrapPath(tt.path, tt.cols)
			if got != tt.want {
				t.Fatalf("WrapPath = %q, want %q", got, tt.want)
			}
			for _, line := range strings.Split(got, "\n") {
				if utf8.RuneCountInString(line) > tt.cols {
					t.Errorf("line %q longer than %d", line, tt.cols)
				}
			}
			if strings.ReplaceAll(got, "\n", "") != tt.path {
				t.Errorf("lines do not rejoin to the path")
			}
		})
	}
}

// TestRequestWords: what the window says about a request, in words.
func TestRequestWords(t *testing.T) {
	file := wire.Request{Op: guard.OpRead, Path: "/home/u/Downloads/report.csv", Agent: "claude",
		Suggested: guard.Scope{Kind: guard.KindFile}}
	folder := wire.Request{Op: guard.OpRead, Path: "/home/u/Downloads", Command: wire.TreeRead("/home/u/Downloads")}
	connect := wire.Request{Op: guard.OpConnect, Path: "registry.npmjs.org:443", Agent: "claude", Tool: "connect (command paused)",
		Suggested: guard.Scope{Op: guard.OpConnect, Path: "registry.npmjs.org:443", Kind: guard.KindFile}}
	tests := []struct{ name, got, want string }{
		{"tilde", Tilde("/home/u/Downloads/x", "/home/u"), "~/Downloads/x"},
		{"tilde not a prefix word", Tilde("/home/user2/x", "/home/u"), "/home/user2/x"},
		{"file heading", Heading(file), "report.csv"},
		{"file target", Target(file, "/home/u"), "in ~/Downloads"},
		{"folder target", Target(folder, "/home/u"), "everything under ~/Downloads (recursive)"},
		{"file verb", Verb(file), "read"},
		{"connection verb", Verb(connect), "connect to"},
		{"connection heading", Heading(connect), "registry.npmjs.org:443"},
		{"connection heading, IPv6", Heading(wire.Request{Op: guard.OpConnect, Path: "[2001:db8::7]:22"}), "[2001:db8::7]:22"},
		{"connection target", Target(connect, "/home/u"), "over the network, through pathgrant's proxy"},
		{"connection notification", NotifyText(connect), "Claude wants to connect to registry.npmjs.org:443"},
		{"agent", AgentName("claude"), "Claude"},
		{"no agent", AgentName(""), "The agent"},
		{"asked once", AskedText(1), "asked once"},
		{"asked often", AskedText(4), "asked 4 times"},
		{"command", ApproveCommand("abc123", wire.Choice{Scope: "once", Kind: guard.KindFile}), "pathgrant approve abc123 --scope once"},
		{"command for a limited folder grant", ApproveCommand("abc123", wire.Choice{Scope: "device", Kind: guard.KindFolder, For: "8h"}),
			"pathgrant approve abc123 --scope device --folder --for 8h"},
		{"a code not offered", CodesText(nil, []wire.Choice{{Scope: "once", Kind: guard.KindFolder}}),
			"Approval codes, one per choice:\n  --scope once --folder              not offered"},
		{"still waiting", StillWaitingText(1)[:22], "1 request still waits "},
		{"refusal from the daemon", RefusalText(fmt.Errorf("decide: %w", &wire.DaemonError{Status: 403, Msg: "wrong code"})), "wrong code"},
		{"other refusal", RefusalText(errors.New("no daemon\nat /run/x")), "no daemon"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("got %q, want %q", tt.got, tt.want)
			}
		})
	}
}

// TestApproveCommandShown: the shown command is one shell command cut
// after the id with its continuation, and each line fits the window.
func TestApproveCommandShown(t *testing.T) {
	id := "0123456789abcdef0123456789abcdef"
	c := wire.Choice{Scope: "session", Kind: guard.KindFolder, For: "15m"}
	s := ApproveCommandShown(id, c)
	lines := strings.Split(s, "\n")
	if len(lines) != 2 || !strings.HasSuffix(lines[0], " \\") || strings.TrimSpace(lines[1]) != c.Flags() {
		t.Fatalf("shown %q", s)
	}
	if joined := strings.Join(strings.Fields(strings.ReplaceAll(s, "\\\n", " ")), " "); joined != ApproveCommand(id, c) {
		t.Fatalf("shown command runs as %q", joined)
	}
	for _, l := range lines {
		if len(l) > 56 {
			t.Errorf("line %q is wider than the window's command row", l)
		}
	}
}

// TestDurationFor: each duration label maps to the decision's For.
func TestDurationFor(t *testing.T) {
	for _, ds := range [][]Duration{SessionDurations, DeviceDurations} {
		for _, d := range ds {
			if got := durationFor(ds, d.Label); got != d.For {
				t.Errorf("%q: For %q, want %q", d.Label, got, d.For)
			}
		}
	}
	if DeviceDurations[3].For != "168h" || SessionDurations[0].For != "" {
		t.Error("durations changed")
	}
}

// TestDurationsHaveCodes: each duration a menu offers is one the daemon
// makes a code for (wire.OfferedFor), in the same order, so every choice
// the window shows has its code.
func TestDurationsHaveCodes(t *testing.T) {
	for scope, ds := range map[string][]Duration{"session": SessionDurations, "device": DeviceDurations} {
		var fors []string
		for _, d := range ds {
			fors = append(fors, d.For)
		}
		if got, want := strings.Join(fors, ","), strings.Join(wire.OfferedFor(scope), ","); got != want {
			t.Errorf("%s menu offers %q, the daemon codes %q", scope, got, want)
		}
	}
}

// TestWrapText: a command breaks at its spaces, and a path in it that is
// longer than a line at its separators, never mid-word.
func TestWrapText(t *testing.T) {
	tests := []struct {
		name, text string
		cols       int
		want       string
	}{
		{"fits", "cat ~/a.csv", 20, "cat ~/a.csv"},
		{"at spaces", "grep -rn TODO ~/Downloads", 14, "grep -rn TODO\n~/Downloads"},
		{"a long path", "cat ~/Downloads/quarterly-reports/2026/a-very-long-file-name-that-wraps.csv", 30,
			"cat\n~/Downloads/quarterly-reports/\n2026/a-very-long-file-name-\nthat-wraps.csv"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := WrapText(tt.text, tt.cols); got != tt.want {
				t.Fatalf("WrapText = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestPausedText(t *testing.T) {
	tests := []struct {
		name     string
		op       guard.Op
		held, by string
		want     []string // in the text; none: no text at all
	}{
		{"no command waits", guard.OpRead, "", "", nil},
		{"a program waits", guard.OpRead, "python3 read.py", wire.HeldByFS, []string{"paused, waiting for you", "python3 read.py opened this file", "nothing runs again",
			"Held by pathgrant's file system"}},
		{"a program waits in the fallback", guard.OpRead, "python3 read.py", wire.HeldBySeccomp, []string{"python3 read.py opened this file",
			"Held by the seccomp supervisor: pathgrant's file system cannot be mounted here", "pathgrant doctor"}},
		{"a name with a newline stays on its line", guard.OpRead, "evil\nAllow", "", []string{`evil\nAllow opened`}},
		{"a connection always waits in its connect", guard.OpConnect, "", "", []string{"paused, waiting for you", "connecting to this host",
			"the connection goes through (nothing runs again)", "deny, and it is refused"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := PausedText(wire.Request{Op: tt.op, Held: tt.held, HeldBy: tt.by})
			if tt.want == nil && got != "" {
				t.Errorf("PausedText = %q, want none", got)
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("PausedText = %q, want %q in it", got, w)
				}
			}
		})
	}
}

// TestWrapName: the headline breaks after a space, '-', '_' or '.', and
// only with no such place inside a run of letters.
func TestWrapName(t *testing.T) {
	tests := []struct {
		name, in string
		cols     int
		want     string
	}{
		{"short", "report.csv", 20, "report.csv"},
		{"at dashes", "quarterly-report-final-version.csv", 20, "quarterly-report-\nfinal-version.csv"},
		{"at spaces", "Scan of my passport 2026.pdf", 17, "Scan of my\npassport 2026.pdf"},
		{"at underscores and dots", "db_backup_2026.12.06_full.tar.gz", 14, "db_backup_\n2026.12.06_\nfull.tar.gz"},
		{"no break left", strings.Repeat("a", 25), 10, "aaaaaaaaaa\naaaaaaaaaa\naaaaa"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := WrapName(tt.in, tt.cols)
			if got != tt.want {
				t.Fatalf("WrapName = %q, want %q", got, tt.want)
			}
			for _, line := range strings.Split(got, "\n") {
				if utf8.RuneCountInString(line) > tt.cols {
					t.Errorf("line %q longer than %d", line, tt.cols)
				}
			}
		})
	}
}

// TestReasonText: why pathgrant asks, worded for the person: the path
// as "this file" (folder, host), no "can be approved" (the window is the
// asking), no internal code.
func TestReasonText(t *testing.T) {
	tests := []struct {
		name string
		r    wire.Request
		want string
	}{
		{"a file", wire.Request{Op: guard.OpRead, Path: "/home/u/Downloads/a.csv",
			RequestContext: wire.RequestContext{Reason: "read /home/u/Downloads/a.csv is outside the workspace; reading it can be approved"}},
			"This file is outside the workspace"},
		{"a folder", wire.Request{Op: guard.OpRead, Path: "/home/u/Downloads", Suggested: guard.Scope{Kind: guard.KindFolder},
			RequestContext: wire.RequestContext{Reason: "read /home/u/Downloads is outside the workspace; reading it can be approved"}},
			"This folder is outside the workspace"},
		{"a host", wire.Request{Op: guard.OpConnect, Path: "example.org:443",
			RequestContext: wire.RequestContext{Reason: "connect example.org:443 is a destination no grant allows; connecting can be approved"}},
			"This host is a destination no grant allows"},
		{"other words kept", wire.Request{Op: guard.OpRead, Path: "/x/a",
			RequestContext: wire.RequestContext{Reason: "no grant covers /x/a."}}, "No grant covers this file"},
		{"none", wire.Request{Op: guard.OpRead, Path: "/x/a"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ReasonText(tt.r); got != tt.want {
				t.Fatalf("ReasonText = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestPurposeText: the agent's stated purpose is quoted and attributed to
// it, on one line, bounded, with what would hide or reorder text shown as
// escapes: it is the agent's words, which may try to pass for the
// window's own.
func TestPurposeText(t *testing.T) {
	tests := []struct{ name, purpose, want string }{
		{"none", "", ""},
		{"blank", " \n\t", ""},
		{"plain", "List the report's columns", "Claude says: \u201cList the report's columns\u201d"},
		{"newlines folded", "Read it\n\n\nAPPROVED BY PATHGRANT", "Claude says: \u201cRead it APPROVED BY PATHGRANT\u201d"},
		{"a bidi override escaped", "read \u202ecod.exe", "Claude says: \u201cread \\u202ecod.exe\u201d"},
		{"bounded", strings.Repeat("x", 500), "Claude says: \u201c" + strings.Repeat("x", maxPurpose) + "…\u201d"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := PurposeText(wire.Request{Agent: "claude", Purpose: tt.purpose}); got != tt.want {
				t.Fatalf("PurposeText = %q, want %q", got, tt.want)
			}
		})
	}
}
