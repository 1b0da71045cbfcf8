package ipc

import (
	"os"
	"path/filepath"

	"pathgrant/appdirs"
	"pathgrant/guard"
)

// agentSettings are the agents' global hook settings, relative to the home
// folder: a session that could rewrite them could switch its own guard off.
var agentSettings = []string{
	".claude/settings.json", ".claude/settings.local.json", ".codex/hooks.json", ".codex/config.toml",
	".gemini/settings.json", ".cursor/hooks.json", ".pi/agent/extensions", ".pi/agent/settings.json",
}

// relocatedSettings are the hook settings of clients whose config folder an
// environment variable moves.
var relocatedSettings = map[string][]string{
	"CLAUDE_CONFIG_DIR": {"settings.json", "settings.local.json"},
	"CODEX_HOME":        {"hooks.json", "config.toml"},
}

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
	for _, rel := range agentSettings {
		protected = append(protected, filepath.Join(home, rel))
	}
	for env, files := range relocatedSettings {
		if dir := getenv(env); filepath.IsAbs(dir) {
			for _, f := range files {
				protected = append(protected, filepath.Join(dir, f))
			}
		}
	}
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
