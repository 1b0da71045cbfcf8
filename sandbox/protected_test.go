package sandbox

import (
	"os"
	"path/filepath"
	"pathgrant/wire"
	"slices"
	"strings"
	"testing"
)

// TestViewProtectedSet: the view pins every member of the protected set
// present in a workspace (in the case it is spelt), holds the place of the
// absent top-level ones, protects the git members of every repository it
// finds, leaves what git's normal work writes alone, and opens what the
// device policy opens.
func TestViewProtectedSet(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w := root + "/w"
	files := []string{".git/HEAD", ".git/config", ".git/objects/x", ".git/worktrees/wt/HEAD", ".git/worktrees/wt/commondir",
		".git/modules/lib/HEAD", ".git/modules/lib/config", ".git/modules/lib/objects/x", ".VSCode/tasks.json", ".Envrc",
		"a/b/.git/HEAD", "a/b/.git/config", "a/b/.git/hooks/pre-commit", "linked/.git", "gd/HEAD", "gd/commondir", "gd/config.worktree",
		"bare.git/HEAD", "bare.git/objects/y", "bare.git/config", "node_modules/m/.git/config",
		"d1/d2/d3/d4/d5/d6/d7/.git/config", "src/config", "docs/hooks/x.md"}
	for _, f := range files {
		p := filepath.Join(w, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(w+"/linked/.git", []byte("gitdir: ../gd\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	build := func(open ...string) View {
		in := Input{Policy: wire.Policy{Workspace: []string{w}}, Device: Device{AllowProtected: open}}
		v, err := BuildView(in, ViewConfig{}, NewMemoFS(OSFS{}))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	v := build()
	has := func(v View, op, dst string) bool {
		return slices.ContainsFunc(v.Mounts, func(m Mount) bool { return m.Op == op && m.Dst == w+"/"+dst })
	}
	ro := func(dst string) bool { return has(v, "--ro-bind", dst) }
	cases := []struct {
		name string
		ok   bool
	}{
		{".git/config read-only", ro(".git/config")},
		{"objects left writable", !ro(".git/objects") && !ro(".git/objects/x")},
		{"worktrees folder left writable (worktree add)", !ro(".git/worktrees")},
		{"a linked worktree's commondir read-only", ro(".git/worktrees/wt/commondir")},
		{"a submodule's config read-only", ro(".git/modules/lib/config")},
		{"present member in its own case read-only", ro(".VSCode") && ro(".Envrc")},
		{"nested repository's config and hooks", ro("a/b/.git/config") && ro("a/b/.git/hooks")},
		{"gitdir: target's members", ro("gd/commondir") && ro("gd/config.worktree")},
		{"bare repository's config", ro("bare.git/config")},
		{"absent .mcp.json held by an empty read-only folder", has(v, "--tmpfs", ".mcp.json") && has(v, "--remount-ro", ".mcp.json")},
		{"absent .gitmodules and .bashrc not held (afterrun's)", !has(v, "--tmpfs", ".gitmodules") && !has(v, "--tmpfs", ".bashrc")},
		{"absent .claude an empty read-only folder", has(v, "--tmpfs", ".claude") && has(v, "--remount-ro", ".claude")},
		{"placeholders listed", slices.Contains(v.Placeholders, w+"/.mcp.json") && slices.Contains(v.Placeholders, w+"/.claude") && !slices.Contains(v.Placeholders, w+"/.git/config")},
		{"past the depth bound left to afterrun", !ro("d1/d2/d3/d4/d5/d6/d7/.git/config")},
		{"dependency folders skipped", !ro("node_modules/m/.git/config")},
		{"twins left alone", !ro("src/config") && !ro("docs/hooks")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if !c.ok {
				t.Errorf("mounts:\n%s", mountList(v))
			}
		})
	}
	opened := build(".vscode", ".git/config", ".mcp.json")
	t.Run("opened members writable", func(t *testing.T) {
		if has(opened, "--ro-bind", ".VSCode") || has(opened, "--ro-bind", ".git/config") || has(opened, "--tmpfs", ".mcp.json") ||
			!has(opened, "--ro-bind", ".Envrc") {
			t.Errorf("mounts:\n%s", mountList(opened))
		}
	})
	if _, err := os.Lstat(w + "/.mcp.json"); err == nil {
		t.Error("BuildView created .mcp.json")
	}
}

func mountList(v View) string {
	var b strings.Builder
	for _, m := range v.Mounts {
		b.WriteString(strings.Join(m.Args(), " ") + " (" + m.Why + ")\n")
	}
	return b.String()
}
