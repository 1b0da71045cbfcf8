package wire

import "testing"

func TestAgentCommand(t *testing.T) {
	for _, tc := range []struct{ name, text, want string }{
		{"prefixed", `cd -- '/home/u/p' && ls -la`, "ls -la"},
		{"quote in dir", `cd -- '/tmp/it'\''s' && cat x`, "cat x"},
		{"chained command kept whole", `cd -- '/w' && a && b`, "a && b"},
		{"the agent's own cd stays", "cd /tmp && ls", "cd /tmp && ls"},
		{"unquoted dir stays", "cd -- /w && ls", "cd -- /w && ls"},
		{"no && after the dir", `cd -- '/w' ; ls`, `cd -- '/w' ; ls`},
		{"unterminated quote", `cd -- '/w && ls`, `cd -- '/w && ls`},
		{"plain", "echo hi", "echo hi"},
		{"empty", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := AgentCommand(tc.text); got != tc.want {
				t.Errorf("AgentCommand(%q) = %q, want %q", tc.text, got, tc.want)
			}
		})
	}
}

func TestIsTreeRead(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       bool
	}{
		{"built", TreeRead("/home/u/Downloads"), true},
		{"quote in root", TreeRead("/tmp/it's"), true},
		{"more after it", TreeRead("/a") + " && cat /etc/shadow", false},
		{"second word", "ls -R -- '/a' '/b'", false},
		{"a dotdot, read twice", TreeRead("/w/l/../x"), true},
		{"a dotdot, another second root", "ls -R -- '/w/l/../x' '/etc'", false},
		{"quote at the end", TreeRead("/tmp/a'"), true},
		{"unquoted", "ls -R -- /a", false},
		{"another command", "ls -la", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := IsTreeRead(tc.text); got != tc.want {
				t.Errorf("IsTreeRead(%q) = %v, want %v", tc.text, got, tc.want)
			}
		})
	}
}

// FuzzShellIn checks that AgentCommand is the exact inverse of ShellIn
// for every directory and command (seed corpus in testdata/fuzz).
func FuzzShellIn(f *testing.F) {
	f.Fuzz(func(t *testing.T, dir, command string) {
		if got := AgentCommand(ShellIn(dir, command)); got != command {
			t.Errorf("AgentCommand(ShellIn(%q, %q)) = %q", dir, command, got)
		}
	})
}

// TestTreeReadTwiceForDotDot: a root holding a `..` is read as written
// and lexically cleaned, since a client may open either.
func TestTreeReadTwiceForDotDot(t *testing.T) {
	for _, tc := range []struct{ root, want string }{
		{"/w/src", "ls -R -- '/w/src'"},
		{"/w/link/../../x", "ls -R -- '/w/link/../../x' '/x'"},
		{"/w/..x/y", "ls -R -- '/w/..x/y'"},
	} {
		t.Run(tc.root, func(t *testing.T) {
			if got := TreeRead(tc.root); got != tc.want {
				t.Errorf("TreeRead(%q) = %q, want %q", tc.root, got, tc.want)
			}
		})
	}
}
