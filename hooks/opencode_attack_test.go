package hooks

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestOpenCodeReadInstructionFiles: OpenCode's read tool also reads the
// AGENTS.md, CLAUDE.md or CONTEXT.md of each folder between the file and
// the directory its tools run in and hands them to the model, with no
// tool call of their own, so a link the agent made there to a file
// outside the workspace must be judged as the read it is.
func TestOpenCodeReadInstructionFiles(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws, secret := root+"/w", root+"/secret.txt"
	files := map[string]string{
		secret:                    "s",
		ws + "/AGENTS.md":         "the workspace's own, read by OpenCode at start",
		ws + "/a/f.txt":           "x",
		ws + "/a/b/f.txt":         "x",
		ws + "/a/b/CLAUDE.md":     "plain",
		ws + "/a/b/CONTEXT.md":    "read when OpenCode skips CLAUDE.md (OPENCODE_DISABLE_CLAUDE_CODE)",
		ws + "/d/f.txt":           "x",
		ws + "/d/CONTEXT.md":      "read after a dangling AGENTS.md",
		ws + "2/f.txt":            "x",
		ws + "2/AGENTS.md":        "a sibling whose name starts with the workspace's",
		ws + "/plain/f.txt":       "x",
		ws + "/plain/notes/x.txt": "x",
	}
	for p, data := range files {
		agentsWriteFile(t, p, data)
	}
	for link, target := range map[string]string{ws + "/a/AGENTS.md": secret, ws + "/d/AGENTS.md": root + "/missing"} {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name, cwd, file string
		want            []string
	}{
		{"a linked AGENTS.md in the file's folder", ws, ws + "/a/f.txt", []string{ws + "/a/f.txt", ws + "/a/AGENTS.md"}},
		{"each folder up to the cwd, the first name that exists (CONTEXT.md past CLAUDE.md)", ws, ws + "/a/b/f.txt",
			[]string{ws + "/a/b/f.txt", ws + "/a/b/CLAUDE.md", ws + "/a/b/CONTEXT.md", ws + "/a/AGENTS.md"}},
		{"relative path resolved against the cwd", ws, "a/b/../f.txt", []string{ws + "/a/f.txt", ws + "/a/AGENTS.md"}},
		{"a dangling link and the name after it", ws, ws + "/d/f.txt", []string{ws + "/d/f.txt", ws + "/d/AGENTS.md", ws + "/d/CONTEXT.md"}},
		{"not the cwd's own", ws, ws + "/f.txt", []string{ws + "/f.txt"}},
		{"none found", ws, ws + "/plain/notes/x.txt", []string{ws + "/plain/notes/x.txt"}},
		{"a sibling sharing the cwd's name as a prefix, as OpenCode compares", ws, ws + "2/f.txt", []string{ws + "2/f.txt", ws + "2/AGENTS.md"}},
		{"outside the cwd", ws + "/plain", ws + "/a/f.txt", []string{ws + "/a/f.txt"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := fmt.Sprintf(`{"hook_event_name":"tool.execute.before","session_id":"opencode-1","cwd":%q,"tool_name":"read","args":{"filePath":%q},"mcp_servers":null}`,
				tc.cwd, tc.file)
			got, _ := openCodeReads(t, in)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("reads %q, want %q", got, tc.want)
			}
		})
	}
}

func agentsWriteFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestOpenCodeGrepFollowsLinks: OpenCode's grep resolves its path to the
// real one and searches, for a file, all of that file's folder, so a
// link in the workspace to a file outside is a search of the folder
// outside, not of the workspace.
func TestOpenCodeGrepFollowsLinks(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws, home := root+"/w", root+"/home"
	agentsWriteFile(t, home+"/secret.txt", "s")
	agentsWriteFile(t, ws+"/notes.txt", "x")
	for link, target := range map[string]string{ws + "/file-link": "../home/secret.txt", ws + "/dir-link": "../home", ws + "/inner": "notes.txt"} {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct{ name, path, want string }{
		{"a link to a file outside: that file's folder", "file-link", home},
		{"the same, absolute", ws + "/file-link", home},
		{"a link to a folder: the link, which the guard follows", "dir-link", ws + "/dir-link"},
		{"a link to a file in the workspace", "inner", ws},
		{"a plain file", "notes.txt", ws},
		{"a path that does not exist", "dir-link/none.txt", ws + "/dir-link"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			checkOpenCodeGrep(t, ws, tc.path, tc.want)
		})
	}
}

// TestOpenCodeTaskMentions: OpenCode reads each file a sub-agent's prompt
// @-mentions into the sub-agent's first message itself, with its read
// tool but no tool call the plugin sees, so the task call is checked as
// a read of each.
func TestOpenCodeTaskMentions(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home, ws := root+"/home", root+"/home/w"
	t.Setenv("HOME", home)
	agentsWriteFile(t, ws+"/sub/AGENTS.md", "x")
	cases := []struct {
		name, prompt, worktree string
		want                   []string
	}{
		{"no mention", "summarize the project", ws, nil},
		{"a home path", "summarize @~/secret.txt please", ws, []string{home + "/secret.txt"}},
		{"relative, against the worktree", "see @../secret.txt, then @src/a.go.", ws + "/sub", []string{home + "/w/secret.txt", ws + "/sub/src/a.go", ws + "/sub/AGENTS.md"}},
		{"absolute, once each", "@/etc/passwd and @/etc/passwd", ws, []string{"/etc/passwd"}},
		{"with the instruction files read beside it", "@sub/x.txt", ws, []string{ws + "/sub/x.txt", ws + "/sub/AGENTS.md"}},
		{"an e-mail address or code is no mention", "mail a@b.org or run `@x`", ws, nil},
		{"ends where JavaScript's \\s does", "@/etc/passwd\u00a0tail", ws, []string{"/etc/passwd"}},
		{"ends at a comma or backquote", "@/etc/hosts,@/etc/group`", ws, []string{"/etc/hosts", "/etc/group"}},
		{"no worktree: the cwd", "@x.txt", "", []string{ws + "/x.txt"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := fmt.Sprintf(`{"hook_event_name":"tool.execute.before","session_id":"opencode-1","cwd":%q,"worktree":%q,"tool_name":"task","args":{"description":"d","prompt":%q,"subagent_type":"general"},"mcp_servers":null}`,
				ws, tc.worktree, tc.prompt)
			got, c := openCodeReads(t, in)
			if !reflect.DeepEqual(got, tc.want) || c.NoFiles != (tc.want == nil) {
				t.Errorf("reads %q (no files %v), want %q", got, c.NoFiles, tc.want)
			}
		})
	}
}

// openCodeReads parses an OpenCode call and returns the paths it reads;
// any other access is an error.
func openCodeReads(t *testing.T, in string) ([]string, Call) {
	t.Helper()
	c, err := adapterOf(t, "opencode").parse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range c.Accesses {
		if a.Op != "read" {
			t.Errorf("access %+v is not a read", a)
		}
		got = append(got, a.Path)
	}
	return got, c
}

// checkOpenCodeGrep checks that OpenCode's grep of path, run in ws, is
// checked as one search of the folder want.
func checkOpenCodeGrep(t *testing.T, ws, path, want string) {
	t.Helper()
	in := fmt.Sprintf(`{"hook_event_name":"tool.execute.before","session_id":"opencode-1","cwd":%q,"tool_name":"grep","args":{"pattern":"s","path":%q},"mcp_servers":null}`,
		ws, path)
	c, err := adapterOf(t, "opencode").parse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Accesses) != 1 || c.Accesses[0].Command != treeAccess(want).Command {
		t.Errorf("accesses %+v, want one search of %s", c.Accesses, want)
	}
}
