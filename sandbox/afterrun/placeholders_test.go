package afterrun

import (
	"os"
	"path/filepath"
	"testing"
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
