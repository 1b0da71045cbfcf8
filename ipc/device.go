package ipc

import (
	"os"
	"path/filepath"
	"strings"

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
// its config folder) and the agents' global hook settings. Paths are
// absolute but not canonical; compiling the policy canonicalises them.
func DefaultDevicePolicy(home, storePath, socketPath string) guard.DevicePolicy {
	config := configHome(home)
	protected := []string{ownFolder(storePath, home), ownFolder(socketPath, home), filepath.Join(home, ".config", "pathgrant")}
	if c := filepath.Join(config, "pathgrant"); c != protected[2] {
		protected = append(protected, c)
	}
	for _, rel := range agentSettings {
		protected = append(protected, filepath.Join(home, rel))
	}
	for env, files := range relocatedSettings {
		if dir := os.Getenv(env); filepath.IsAbs(dir) {
			for _, f := range files {
				protected = append(protected, filepath.Join(dir, f))
			}
		}
	}
	return guard.DevicePolicy{EligibleReadOnly: []string{downloadDir(home, config)}, Protected: protected}
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

// configHome is $XDG_CONFIG_HOME when it is absolute (the XDG spec ignores
// a relative one), else ~/.config.
func configHome(home string) string {
	if c := os.Getenv("XDG_CONFIG_HOME"); filepath.IsAbs(c) {
		return filepath.Clean(c)
	}
	return filepath.Join(home, ".config")
}

// downloadDir reads XDG_DOWNLOAD_DIR from user-dirs.dirs in the config
// folder; the last valid assignment wins, as when a shell sources the file.
// Without one it is ~/Downloads.
func downloadDir(home, config string) string {
	dir := filepath.Join(home, "Downloads")
	data, err := os.ReadFile(filepath.Join(config, "user-dirs.dirs"))
	if err != nil {
		return dir
	}
	for line := range strings.Lines(string(data)) {
		line = strings.TrimPrefix(strings.TrimSpace(line), "export ")
		key, val, ok := strings.Cut(line, "=")
		if !ok || strings.TrimSpace(key) != "XDG_DOWNLOAD_DIR" {
			continue
		}
		if d, ok := userDir(val, home); ok {
			dir = d
		}
	}
	return dir
}

// userDir parses one user-dirs.dirs value: "$HOME/x" or "/abs/x", double
// quoted (with backslash escapes) or bare. It refuses what is not absolute
// after $HOME substitution, and a folder that is the home folder or holds it
// (the spec's way of disabling a folder; and far too broad to offer).
func userDir(val, home string) (string, bool) {
	v, expand, ok := unquote(strings.TrimSpace(val))
	if !ok {
		return "", false
	}
	for _, prefix := range []string{"$HOME", "${HOME}"} {
		if rest, found := strings.CutPrefix(v, prefix); expand && found && (rest == "" || rest[0] == '/') {
			v = home + rest
			break
		}
	}
	if !filepath.IsAbs(v) {
		return "", false
	}
	v = filepath.Clean(v)
	if guard.Within(v, filepath.Clean(home)) {
		return "", false
	}
	return v, true
}

// unquote reads one shell word: double quoted (a backslash keeps the next
// character), single quoted (taken literally, so $HOME does not expand), or
// bare (ending at the first blank). What follows it may only be blanks or
// a comment. expand says whether $HOME expands.
func unquote(v string) (word string, expand, ok bool) {
	var rest string
	switch {
	case strings.HasPrefix(v, "'"):
		end := strings.IndexByte(v[1:], '\'')
		if end < 0 {
			return "", false, false
		}
		word, rest, expand = v[1:end+1], v[end+2:], false
	case strings.HasPrefix(v, `"`):
		word, rest, ok = scan(v[1:], func(c byte) bool { return c == '"' })
		if !ok {
			return "", false, false
		}
		rest, expand = rest[1:], true
	default:
		word, rest, _ = scan(v, func(c byte) bool { return c == ' ' || c == '\t' || c == '"' || c == '\'' })
		if strings.HasPrefix(rest, `"`) || strings.HasPrefix(rest, "'") {
			return "", false, false
		}
		expand = true
	}
	rest = strings.TrimSpace(rest)
	return word, expand, rest == "" || rest[0] == '#'
}

// scan copies s up to the first unescaped byte stop accepts, dropping each
// escaping backslash; found says whether such a byte was met (rest starts
// with it).
func scan(s string, stop func(byte) bool) (word, rest string, found bool) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\\' && i+1 < len(s):
			i++
		case stop(s[i]):
			return b.String(), s[i:], true
		}
		b.WriteByte(s[i])
	}
	return b.String(), "", false
}
