package afterrun

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestRemovePlaceholdersFollowsNoLink: a placeholder below the top (a
// nested repository's absent hooks) whose folder on the way became a
// link since (another session's command over a folder holding the
// workspace): the removal does not follow it to the person's folder
// outside the workspace, and says so.
func TestRemovePlaceholdersFollowsNoLink(t *testing.T) {
	root := t.TempDir()
	ws, victim := filepath.Join(root, "ws"), filepath.Join(root, "person", "proj")
	for _, d := range []string{filepath.Join(ws, "sub.orig", ".git"), filepath.Join(victim, ".git", "hooks")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(victim, filepath.Join(ws, "sub")); err != nil { // the outer session's command
		t.Fatal(err)
	}
	if said := RemovePlaceholders([]string{filepath.Join(ws, "sub", ".git", "hooks")}); len(said) != 1 {
		t.Errorf("findings %v; want one saying it was left alone", said)
	}
	if _, err := os.Lstat(filepath.Join(victim, ".git", "hooks")); err != nil {
		t.Errorf("the person's folder outside the workspace was removed: %v", err)
	}
}

// TestHeldPlaceholdersLeftAlone: the placeholders a check keeps for
// another command's view (Plan.Held), made during the command, are left
// where they are while they are empty folders, a git member's among
// them (.git/config.worktree, which the walk of the git directory
// would otherwise move aside); one a command filled is moved aside.
func TestHeldPlaceholdersLeftAlone(t *testing.T) {
	ws, _ := workspace(t)
	plan := Begin([]string{ws}, true)
	time.Sleep(testSlack)
	held := []string{filepath.Join(ws, ".git", "config.worktree"), filepath.Join(ws, ".mcp.json"), filepath.Join(ws, ".vscode")}
	for _, p := range held {
		if err := os.Mkdir(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(ws, ".vscode", "tasks.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	plan.Held = held
	if _, err := Check(plan); err != nil {
		t.Fatal(err)
	}
	for _, p := range held[:2] {
		if fi, err := os.Lstat(p); err != nil || !fi.IsDir() {
			t.Errorf("the held placeholder %s was moved: %v", p, err)
		}
	}
	if _, err := os.Lstat(held[2]); err == nil {
		t.Error("a held placeholder a command filled was left in place")
	}
}
