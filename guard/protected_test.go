package guard

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"pathgrant/guard/protected"
)

// plantFixture is a workspace holding a repository, a nested one, a
// linked worktree's gitdir: target outside .git and a bare repository,
// so that every place git reads from is on disk.
func plantFixture(t *testing.T, open ...string) (string, *Compiled) {
	t.Helper()
	w, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{".git/HEAD", "sub/deep/.git/HEAD", "gd/HEAD", "bare.git/HEAD", "src/a.go",
		"evil/config", "docs/hooks/x.md", ".github/workflows/ci.yml"} {
		mustMkdir(t, filepath.Dir(filepath.Join(w, f)))
		if err := os.WriteFile(filepath.Join(w, f), []byte("x\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(w, "wt.git"), []byte("gitdir: "+w+"/gd\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := Policy{SessionPolicy: SessionPolicy{Cwd: w, Workspace: []string{w}},
		DevicePolicy: DevicePolicy{AllowProtected: open}}.Compile(w)
	if err != nil {
		t.Fatal(err)
	}
	return w, p
}

// memberPaths are where a member is reached, relative to the workspace:
// at the top, nested, inside a nested repository and inside a git
// directory found by its content (gitdir: target, bare repository).
func memberPaths(m protected.Member) []string {
	var out []string
	name := m.Name
	variants := []string{name, strings.ToUpper(name), strings.ToUpper(name[:2]) + name[2:]}
	for _, v := range variants {
		if m.Kind == protected.Anywhere {
			out = append(out, v, "a/b/"+v, "sub/deep/"+v, v+"/x")
			continue
		}
		out = append(out, ".git/"+v, ".GIT/"+v, "sub/deep/.git/"+v, "new/.git/"+v, "gd/"+v, "bare.git/"+v, ".git/"+v+"/x")
	}
	return out
}

func TestProtectedSetDeniesEveryMemberEverywhere(t *testing.T) {
	w, p := plantFixture(t)
	for _, m := range protected.Members() {
		for _, rel := range memberPaths(m) {
			for _, op := range []Op{OpWrite, OpDelete, OpMove} {
				t.Run(string(op)+" "+rel, func(t *testing.T) {
					d := mustEval(t, p, Request{Op: op, Path: filepath.Join(w, rel)})
					if d.Verdict != Deny || d.Eligible || d.Accesses[0].Rule != RuleProtected {
						t.Fatalf("%s %s: got %s eligible=%v (%s), want a protected deny", op, rel, d.Verdict, d.Eligible, d.Reason)
					}
				})
			}
		}
	}
}

// TestProtectedSetEntries are the entries that turn a folder into a
// repository git uses, and the benign twins that stay writable.
func TestProtectedSetEntries(t *testing.T) {
	cases := []struct {
		rel  string
		want Verdict
	}{
		{".git", Deny}, {"sub/.git", Deny}, {"new/.Git", Deny}, // a .git file or folder made by hand
		{"evil/HEAD", Deny},        // evil holds config: HEAD makes it a repository
		{"evil/config", Allow},     // no HEAD yet: a plain file named config
		{"src/config", Allow},      // twin: a file named config outside a repository
		{"docs/hooks/x.md", Allow}, // twin: a folder named hooks outside a repository
		{".github/workflows/ci.yml", Allow},
		{"gitconfig.md", Allow}, {".git-blame-ignore-revs", Allow}, {".gitignore", Allow}, {".gitattributes", Allow},
		{"claude/x", Allow}, {"vscode.md", Allow}, {"my.mcp.json.bak", Allow}, {"profile", Allow},
		{".git/objects/ab/cdef", Allow}, {".git/refs/heads/main", Allow}, {".git/logs/HEAD", Allow},
		{".git/index", Allow}, {".git/HEAD", Allow}, {".git/ORIG_HEAD", Allow}, {".git/COMMIT_EDITMSG", Allow},
		{".git/objects/info/alternates", Allow}, // documented: changes objects seen, runs nothing
		{"sub/deep/.git/objects/x", Allow}, {"gd/index", Allow}, {"bare.git/refs/tags/v1", Allow},
		{"src/HEAD", Allow}, // src holds no git member
	}
	w, p := plantFixture(t)
	for _, tc := range cases {
		t.Run(tc.rel, func(t *testing.T) {
			d := mustEval(t, p, Request{Op: OpWrite, Path: filepath.Join(w, tc.rel)})
			if d.Verdict != tc.want {
				t.Fatalf("write %s: got %s (%s), want %s", tc.rel, d.Verdict, d.Reason, tc.want)
			}
		})
	}
}

// TestProtectedSetHooksPath: the folder a repository's core.hooksPath
// names is protected like hooks/ (husky's .husky/_, a .githooks folder),
// in the repository that names it only.
func TestProtectedSetHooksPath(t *testing.T) {
	w, p := plantFixture(t)
	if err := os.WriteFile(filepath.Join(w, ".git/config"), []byte("[core]\n\thooksPath = .githooks\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		rel  string
		want Verdict
	}{
		{".githooks/pre-commit", Deny}, {".githooks", Deny}, {"src/.githooks/x", Allow}, {"sub/deep/.githooks/x", Allow}, {"githooks.md", Allow},
	}
	for _, tc := range cases {
		t.Run(tc.rel, func(t *testing.T) {
			if d := mustEval(t, p, Request{Op: OpWrite, Path: filepath.Join(w, tc.rel)}); d.Verdict != tc.want {
				t.Fatalf("write %s: got %s (%s), want %s", tc.rel, d.Verdict, d.Reason, tc.want)
			}
		})
	}
}

// TestProtectedSetShell covers the shell analysis: a command writing a
// member is denied like a Write tool call; links are judged where they
// lead and by their own name.
func TestProtectedSetShell(t *testing.T) {
	w, p := plantFixture(t)
	if err := os.Symlink(filepath.Join(w, ".git/config"), filepath.Join(w, "innocent")); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		shell string
		want  Verdict
	}{
		{"echo x > .git/commondir", Deny},
		{"echo x > .git/config.worktree", Deny},
		{"mkdir -p .git/info && echo x > .git/info/attributes", Deny},
		{"echo '[core] fsmonitor=x' > sub/deep/.git/config", Deny},
		{"echo x > .MCP.JSON", Deny},
		{"echo x > innocent", Deny}, // a link into .git/config
		{"ln -s ../gd sub/.git", Deny},
		{"mv .vscode old", Deny},
		{"rm -rf .claude", Deny},
		{"echo x > other.json", Allow},
		{"echo x > src/config", Allow},
	}
	for _, tc := range cases {
		t.Run(tc.shell, func(t *testing.T) {
			d := mustEval(t, p, Request{Shell: tc.shell})
			if d.Verdict != tc.want {
				t.Fatalf("%s: got %s (%s), want %s", tc.shell, d.Verdict, d.Reason, tc.want)
			}
		})
	}
}

// TestAllowProtectedOpensOneMember: the device policy's allow_protected
// opens the named member and nothing else; an unknown name is refused.
func TestAllowProtectedOpensOneMember(t *testing.T) {
	w, p := plantFixture(t, ".VSCode", ".git/config")
	cases := []struct {
		rel  string
		want Verdict
	}{
		{".vscode/tasks.json", Allow}, {"a/.vscode/x", Allow}, {".git/config", Allow}, {"sub/deep/.git/config", Allow},
		{".idea/x", Deny}, {".git/hooks/pre-commit", Deny}, {".git/commondir", Deny},
	}
	for _, tc := range cases {
		t.Run(tc.rel, func(t *testing.T) {
			if d := mustEval(t, p, Request{Op: OpWrite, Path: filepath.Join(w, tc.rel)}); d.Verdict != tc.want {
				t.Fatalf("write %s: got %s (%s), want %s", tc.rel, d.Verdict, d.Reason, tc.want)
			}
		})
	}
	if _, err := (Policy{DevicePolicy: DevicePolicy{AllowProtected: []string{".vscod"}}}).Compile(w); err == nil {
		t.Fatal("an unknown allow_protected name compiled")
	}
}

func mustEval(t *testing.T, p *Compiled, req Request) Decision {
	t.Helper()
	d, err := Evaluate(p, nil, req)
	if err != nil {
		t.Fatalf("Evaluate: %v", err)
	}
	return d
}
