package engine

import (
	"slices"
	"testing"

	"pathgrant/guard"
	"pathgrant/hooks/clientconfig"
)

// TestWorkspaceProtected: what the daemon joins to each workspace root is
// the client table's hook settings and the top of the protected set; an
// opened member leaves it, the hook settings never do.
func TestWorkspaceProtected(t *testing.T) {
	for _, rel := range slices.Concat(clientconfig.ProjectProtected(), guard.WorkspaceProtected(nil)) {
		if !slices.Contains(workspaceProtected, rel) {
			t.Errorf("workspaceProtected lacks %s", rel)
		}
	}
	for _, rel := range []string{".git/config", ".git/commondir", ".git/hooks", ".git/info", ".mcp.json", ".vscode", ".claude", ".idea"} {
		if !slices.Contains(workspaceProtected, rel) {
			t.Errorf("workspaceProtected lacks %s", rel)
		}
	}
	open := workspaceProtectedFor([]string{".vscode", ".git/config", ".claude"})
	for _, rel := range []string{".vscode", ".git/config", ".claude"} {
		if slices.Contains(open, rel) {
			t.Errorf("opened %s still protected", rel)
		}
	}
	for _, rel := range clientconfig.ProjectProtected() {
		if !slices.Contains(open, rel) {
			t.Errorf("opening a member dropped the hook settings %s", rel)
		}
	}
}
