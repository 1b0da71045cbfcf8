package appdirs

import "strings"

// UILocale is env for a process that links Fyne (pathgrant-ui), started
// by the daemon or by `pathgrant settings`. Fyne reads the person's
// locales while its packages initialise, before main can change
// anything, and a C or POSIX locale with a codeset (C.UTF-8, the default
// of containers and minimal systems) reads to it as the language "C",
// which it cannot parse: it logged "Error parsing user locale C" at
// every start. Such an env gets LANGUAGE=en, which Fyne reads first and
// the C library ignores under a C locale; any other env is returned as
// it is. A later entry of a name wins, as in a process's environment.
func UILocale(env []string) []string {
	get := func(name string) string {
		v := ""
		for _, kv := range env {
			if k, val, ok := strings.Cut(kv, "="); ok && k == name {
				v = val
			}
		}
		return v
	}
	if get("LANGUAGE") != "" {
		return env
	}
	var loc string
	for _, name := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		if loc = get(name); loc != "" {
			break
		}
	}
	lang, _, _ := strings.Cut(loc, ".")
	lang, _, _ = strings.Cut(lang, "@")
	if loc == lang || lang != "C" && lang != "POSIX" {
		return env // plain C and POSIX Fyne reads as no locale at all
	}
	return append(env[:len(env):len(env)], "LANGUAGE=en")
}
