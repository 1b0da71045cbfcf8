package afterrun

import (
	"strings"
)

// safeKeys are the configuration keys git init, clone, worktree add and
// submodule write, by section (lower case) and key (lower case); "*" in
// the section stands for any subsection. None of them names a program.
var safeKeys = map[string][]string{
	"core":        {"repositoryformatversion", "filemode", "bare", "logallrefupdates", "ignorecase", "precomposeunicode", "symlinks", "worktree"},
	"extensions":  {"objectformat", "refstorage", "worktreeconfig"},
	"remote.*":    {"url", "fetch", "pushurl"},
	"branch.*":    {"remote", "merge"},
	"submodule.*": {"url", "active"},
	"user":        {"name", "email"},
	"init":        {"defaultbranch"},
}

// unsafeValue reports a value git would turn into a program run: the ext::
// and fd:: transports in a URL.
func unsafeValue(section, key, value string) bool {
	v := strings.ToLower(strings.Trim(value, "\" \t"))
	return strings.HasSuffix(key, "url") && (strings.HasPrefix(v, "ext::") || strings.HasPrefix(v, "fd::"))
}

// screenConfig reads a git config file conservatively and returns its
// safe part (section headers and allowed keys, as written) and whether
// anything else was in it. A line it cannot read (a continuation, an
// include, anything odd) counts as unsafe, and so does a core.worktree
// whose value worktreeOK refuses.
func screenConfig(data string, worktreeOK func(string) bool) (safe string, clean bool) {
	var out strings.Builder
	clean = true
	section := ""
	for line := range strings.SplitSeq(data, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "[") {
			end := strings.IndexByte(t, ']')
			if end < 0 {
				clean = false
				continue
			}
			section = sectionName(t[1:end])
			out.WriteString(t[:end+1] + "\n")
			t = strings.TrimSpace(t[end+1:])
		}
		if t == "" || t[0] == '#' || t[0] == ';' {
			continue
		}
		if !safeLine(section, t, worktreeOK) {
			clean = false
			continue
		}
		out.WriteString("\t" + t + "\n")
	}
	return out.String(), clean
}

// sectionName is "core", or "remote.*" for [remote "origin"] and
// [remote.origin]; "" when it cannot be read.
func sectionName(h string) string {
	h = strings.TrimSpace(h)
	name, sub, hasSub := strings.Cut(h, " ")
	if !hasSub {
		name, sub, hasSub = strings.Cut(h, ".")
	}
	name = strings.ToLower(name)
	if hasSub && strings.TrimSpace(sub) != "" {
		return name + ".*"
	}
	return name
}

func safeLine(section, t string, worktreeOK func(string) bool) bool {
	if strings.HasSuffix(t, "\\") {
		return false
	}
	key, value, _ := strings.Cut(t, "=")
	key = strings.ToLower(strings.TrimSpace(key))
	if section == "core" && key == "worktree" {
		return worktreeOK(plainValue(value))
	}
	for _, k := range safeKeys[section] {
		if k == key {
			return !unsafeValue(section, key, value)
		}
	}
	return false
}

// plainValue is a configuration value written plainly (as git config
// writes a path without quotes, comments or escapes), else "": a value
// git would read otherwise is not screened further, and counts as unsafe.
func plainValue(v string) string {
	v = strings.TrimSpace(v)
	if strings.ContainsAny(v, "\"\\;#") {
		return ""
	}
	return v
}
