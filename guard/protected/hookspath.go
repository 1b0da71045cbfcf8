package protected

import (
	"path/filepath"
	"strings"
)

// HooksDir is the folder a repository's configuration names in
// core.hooksPath, where git then runs hooks from instead of the git
// directory's hooks/ (husky's .husky, a project's .githooks): a member of
// the protected set wherever it lies. config is the text of the git
// directory's config; worktree is the folder git runs hooks in (the one
// holding .git), against which a relative path is taken. It is "" when
// unset or under ~ (outside any workspace).
func HooksDir(config, worktree string) string {
	p := hooksPath(config)
	switch {
	case p == "" || strings.HasPrefix(p, "~"):
		return ""
	case filepath.IsAbs(p):
		return filepath.Clean(p)
	case worktree == "":
		return ""
	}
	return filepath.Join(worktree, p)
}

// hooksPath reads core.hooksPath from a git config text (the last one
// set wins, as in git). It reads the plain forms git config writes;
// includes are not followed.
func hooksPath(config string) string {
	section, value := "", ""
	for line := range strings.SplitSeq(config, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "[") {
			end := strings.IndexByte(t, ']')
			if end < 0 {
				continue
			}
			section = strings.ToLower(strings.TrimSpace(t[1:end]))
			t = strings.TrimSpace(t[end+1:])
		}
		key, v, ok := strings.Cut(t, "=")
		if !ok || section != "core" || !strings.EqualFold(strings.TrimSpace(key), "hookspath") {
			continue
		}
		v = strings.TrimSpace(v)
		if i := strings.IndexAny(v, "#;"); i >= 0 && !strings.HasPrefix(v, "\"") {
			v = strings.TrimSpace(v[:i])
		}
		value = strings.Trim(v, "\"")
	}
	return value
}
