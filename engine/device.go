package engine

import (
	"os"
	"path/filepath"
	"slices"

	"pathgrant/appdirs"
	"pathgrant/guard"
	"pathgrant/hooks/clientconfig"
)

// workspaceProtected are the agents' hook settings inside a workspace,
// relative to it (a session must never be able to rewrite the hooks that
// guard it), and the top of the protected set (guard.WorkspaceProtected:
// git's config and hooks, the agents' project folders, editor task
// folders, shell start-up files), which make a person's tools run a
// program of the writer's choosing outside any confinement.
var workspaceProtected = workspaceProtectedFor(nil)

// workspaceProtectedFor is workspaceProtected less the members the device
// policy's allow_protected opens. The client table's hook settings rows
// are never opened: they are what guards the session.
func workspaceProtectedFor(open []string) []string {
	out := clientconfig.ProjectProtected()
	for _, rel := range guard.WorkspaceProtected(open) {
		if !slices.Contains(out, rel) {
			out = append(out, rel)
		}
	}
	return out
}

// DefaultDevicePolicy is the device policy the daemon runs with. Reads
// under the XDG Downloads folder are eligible for approval when no device
// policy file is configured (Config.DeviceFile; with one, the file's
// eligible_read_only, whose default is the same folder). Protected are
// pathgrant's own state (the folders holding the store and the socket, and
// its config folder) and the agents' global hook settings. getenv is the
// daemon's environment, which moves the XDG folders and the agents' own.
// Paths are absolute but not canonical; compiling the policy
// canonicalises them.
func DefaultDevicePolicy(getenv appdirs.Getenv, home, storePath, socketPath string) guard.DevicePolicy {
	protected := []string{ownFolder(storePath, home), ownFolder(socketPath, home), filepath.Join(home, ".config", "pathgrant")}
	if c := appdirs.ConfigDir(getenv, home); c != protected[2] {
		protected = append(protected, c)
	}
	protected = append(protected, clientconfig.GlobalProtected(getenv, home)...)
	return guard.DevicePolicy{EligibleReadOnly: []string{appdirs.Downloads(getenv, home)}, Protected: protected}
}

// ownFolder returns the folder holding path, or path itself when that
// folder is shared with everything else (the root, the home folder, the
// temp folder): protecting those would forbid writing anywhere in them.
func ownFolder(path, home string) string {
	dir := filepath.Dir(filepath.Clean(path))
	switch dir {
	case "/", filepath.Clean(home), filepath.Clean(os.TempDir()):
		return filepath.Clean(path)
	}
	return dir
}
