package ipc

import (
	"os"
	"path/filepath"

	"pathgrant/appdirs"
	"pathgrant/guard"
	"pathgrant/ipc/hooks"
)

// workspaceProtected are the agents' hook settings inside a workspace,
// relative to it: a session must never be able to rewrite the hooks that
// guard it. A repository's hooks and config are protected too: both make
// git run programs of the writer's choosing (core.hooksPath, core.pager,
// a hook script) outside any confinement, the next time the person runs
// git there.
var workspaceProtected = append(hooks.ProjectProtected(), ".git/hooks", ".git/config")

// DefaultDevicePolicy is the device policy the daemon runs with. Reads
// under the XDG Downloads folder are eligible for approval. Protected are
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
	protected = append(protected, hooks.GlobalProtected(getenv, home)...)
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
