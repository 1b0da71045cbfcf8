package hooks

import (
	"testing"
)

// TestClaudePathsAsClaudeTakesThem: Claude Code trims a tool's path with
// JavaScript's trim() before resolving it (its expandPath), and Grep's and
// Glob's path reach the hook untrimmed, so the hook checks the folder
// Claude searches, not a name inside the workspace it never opens.
func TestClaudePathsAsClaudeTakesThem(t *testing.T) {
	cases := []struct {
		name, client, input string
		want                []Access
	}{
		{"a grep's folder after a space", "claude", `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"Grep","tool_input":{"pattern":"PRIVATE","path":" /h/.ssh"}}`,
			[]Access{{Command: "ls -R -- '/h/.ssh'"}}},
		{"a grep's folder after a no-break space and before a tab", "claude", "{\"hook_event_name\":\"PreToolUse\",\"cwd\":\"/w\",\"tool_name\":\"Grep\",\"tool_input\":{\"pattern\":\"x\",\"path\":\"\u00a0/h/.ssh\\t\"}}",
			[]Access{{Command: "ls -R -- '/h/.ssh'"}}},
		{"a grep's home folder after an ideographic space", "claude", "{\"hook_event_name\":\"PreToolUse\",\"cwd\":\"/w\",\"tool_name\":\"Grep\",\"tool_input\":{\"pattern\":\"x\",\"path\":\"\u3000~/.ssh\"}}",
			[]Access{{Command: "ls -R -- '/home/u/.ssh'"}}},
		{"a glob's folder after a byte-order mark", "claude", "{\"hook_event_name\":\"PreToolUse\",\"cwd\":\"/w\",\"tool_name\":\"Glob\",\"tool_input\":{\"pattern\":\"*\",\"path\":\"\ufeff/h/.ssh\"}}",
			[]Access{{Command: "ls -R -- '/h/.ssh'"}}},
		{"a read after a line separator", "claude", "{\"hook_event_name\":\"PreToolUse\",\"cwd\":\"/w\",\"tool_name\":\"Read\",\"tool_input\":{\"file_path\":\"\u2028/h/.ssh/id_rsa\"}}",
			[]Access{{Op: "read", Path: "/h/.ssh/id_rsa"}}},
		{"a write before a space", "claude", `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"Write","tool_input":{"file_path":"/h/.bashrc ","content":"x"}}`,
			[]Access{{Op: "write", Path: "/h/.bashrc"}}},
		{"a grep's folder of spaces is the cwd", "claude", `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"Grep","tool_input":{"pattern":"x","path":"   "}}`,
			[]Access{{Command: "ls -R -- '/w'"}}},
		{"a grep's home folder", "claude", `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"Grep","tool_input":{"pattern":"x","path":"~/.ssh"}}`,
			[]Access{{Command: "ls -R -- '/home/u/.ssh'"}}},
		{"a glob's home folder itself", "claude", `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"Glob","tool_input":{"pattern":".ssh/*","path":"~"}}`,
			[]Access{{Command: "ls -R -- '/home/u/.ssh'"}}},
		{"a read in the home folder", "claude", `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"Read","tool_input":{"file_path":"~/.netrc"}}`,
			[]Access{{Op: "read", Path: "/home/u/.netrc"}}},
		{"another user's ~name is a name in the cwd", "claude", `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"Grep","tool_input":{"pattern":"x","path":"~root"}}`,
			[]Access{{Command: "ls -R -- '~root'"}}}, // a quoted word: the folder of that name in the cwd
		{"codex takes its paths as written", "codex", `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"Read","tool_input":{"file_path":" x"}}`,
			[]Access{{Op: "read", Path: "/w/ x"}}},
		{"a space inside a name stays", "claude", `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"Read","tool_input":{"file_path":"my notes.txt"}}`,
			[]Access{{Op: "read", Path: "/w/my notes.txt"}}},
	}
	t.Setenv("HOME", "/home/u")
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { checkPaths(t, tc.client, tc.input, tc.want) })
	}
}
