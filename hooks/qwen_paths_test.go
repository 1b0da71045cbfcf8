package hooks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestQwenPathsAsQwenTakesThem: Qwen Code expands a search root's "~"
// (its backslash form too) and globs without regard to case, so the hook
// checks the folders Qwen searches.
func TestQwenPathsAsQwenTakesThem(t *testing.T) {
	t.Setenv("HOME", "/home/u")
	dir := t.TempDir()
	for _, d := range []string{"Keys", "keys"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	in := func(tool, args string) string {
		return `{"hook_event_name":"PreToolUse","cwd":"` + strings.ReplaceAll(dir, `"`, `\"`) + `","tool_name":"` + tool + `","tool_input":` + args + `}`
	}
	tree := func(p string) Access { return Access{Command: "ls -R -- '" + p + "'"} }
	cases := []pathCase{
		{"a grep in the home folder", in("grep_search", `{"pattern":"x","path":"~/.ssh"}`), []Access{tree("/home/u/.ssh")}},
		{"a grep in the home folder written with a backslash", in("grep_search", `{"pattern":"x","path":"~\\.ssh"}`), []Access{tree("/home/u/.ssh")}},
		{"backslashes are separators, joined as Node joins", in("grep_search", `{"pattern":"x","path":"~\\..\\..\\etc"}`), []Access{tree("/etc")}},
		{"a glob in the home folder", in("glob", `{"pattern":"*","path":"~"}`), []Access{tree("/home/u")}},
		{"another user's ~name is a name in the cwd", in("grep_search", `{"pattern":"x","path":"~root"}`), []Access{tree("~root")}},
		{"a glob's folders in every spelling", in("glob", `{"pattern":"KEYS/*"}`),
			[]Access{tree(dir + "/KEYS"), tree(dir + "/Keys"), tree(dir + "/keys")}},
	}
	runPathCases(t, "qwen", cases)
}
