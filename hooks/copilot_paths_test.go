package hooks

import (
	"testing"
)

// TestCopilotPathsEveryWayCopilotMayTakeThem: Copilot's native tools may
// trim a path, strip its surrounding quotes and expand its "~", so the
// hook checks the path as written and as each of those makes it.
func TestCopilotPathsEveryWayCopilotMayTakeThem(t *testing.T) {
	t.Setenv("HOME", "/home/u")
	in := func(tool, args string) string {
		return `{"sessionId":"s","cwd":"/w","toolName":"` + tool + `","toolArgs":` + args + `}`
	}
	cases := []pathCase{
		{"a quoted path", in("view", `{"path":"\"/h/.ssh/id_rsa\""}`),
			[]Access{{Op: "read", Path: `/w/"/h/.ssh/id_rsa"`}, {Op: "read", Path: "/h/.ssh/id_rsa"}}},
		{"a path after a space", in("create", `{"path":" /h/.bashrc","file_text":"x"}`),
			[]Access{{Op: "write", Path: "/w/ /h/.bashrc"}, {Op: "write", Path: "/h/.bashrc"}}},
		{"a quoted home path", in("edit", `{"path":"'~/.bashrc'","old_str":"a","new_str":"b"}`),
			[]Access{{Op: "write", Path: "/w/'~/.bashrc'"}, {Op: "write", Path: "~/.bashrc"}, {Op: "write", Path: "/home/u/.bashrc"}}},
		{"a grep in the home folder", in("grep", `{"pattern":"x","path":"~/.ssh"}`),
			[]Access{{Command: "ls -R -- '~/.ssh'"}, {Command: "ls -R -- '/home/u/.ssh'"}}},
		{"an absolute glob is also anchored at its folder", in("glob", `{"pattern":"/w/*","path":"/h/.ssh"}`),
			[]Access{{Command: "ls -R -- '/w'"}, {Command: "ls -R -- '/h/.ssh/w'"}}},
		{"a plain path is one", in("view", `{"path":"/w/a.txt"}`),
			[]Access{{Op: "read", Path: "/w/a.txt"}}},
	}
	runPathCases(t, "copilot", cases)
}
