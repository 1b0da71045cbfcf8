package appdirs

import (
	"os"
	"path/filepath"
	"strings"
)

// userDownloads is the Linux Downloads folder: XDG_DOWNLOAD_DIR from
// user-dirs.dirs in ConfigHome (the last valid assignment wins, as when a
// shell sources the file), else ~/Downloads. Reads under it are what a
// session may ask the user to approve, so a value that is the home folder
// or holds it is ignored rather than offered.
func userDownloads(getenv Getenv, home string) string {
	dir := filepath.Join(home, "Downloads")
	if d, ok := readUserDirs(getenv, home)["XDG_DOWNLOAD_DIR"]; ok && d != "" {
		dir = d
	}
	return dir
}

// readUserDirs reads user-dirs.dirs in ConfigHome: each key's last valid
// assignment, as when a shell sources the file. A key set to the home
// folder or to a folder holding it maps to "": the XDG spec's way of
// disabling a folder (and far too broad to offer). A missing or
// unreadable file is no assignments.
func readUserDirs(getenv Getenv, home string) map[string]string {
	out := map[string]string{}
	data, err := os.ReadFile(filepath.Join(ConfigHome(getenv, home), "user-dirs.dirs"))
	if err != nil {
		return out
	}
	for line := range strings.Lines(string(data)) {
		line = strings.TrimPrefix(strings.TrimSpace(line), "export ")
		key, val, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		switch d, ok := userDir(val, home); {
		case ok:
			out[strings.TrimSpace(key)] = d
		case d == disabled:
			out[strings.TrimSpace(key)] = ""
		}
	}
	return out
}

// holds reports whether dir is p or one of its ancestors (both clean).
func holds(dir, p string) bool {
	return dir == p || dir == "/" || strings.HasPrefix(p, dir+"/")
}

// disabled is what userDir answers, beside false, for a value that is the
// home folder or holds it.
const disabled = "(disabled)"

// userDir parses one user-dirs.dirs value: "$HOME/x" or "/abs/x", double
// quoted (with backslash escapes) or bare. It refuses what is not absolute
// after $HOME substitution, and a folder that is the home folder or holds it
// (the spec's way of disabling a folder; and far too broad to offer), which
// it names disabled.
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
	if holds(v, filepath.Clean(home)) {
		return disabled, false
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
