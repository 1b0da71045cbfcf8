package guard

import (
	"strings"
)

// optionRefusal is a command the unknown-command rule covers (it runs in
// the workspace and every argument must stay inside it) except for the
// options that take file names from another file or run a program, which
// are unproven: shorts are letters refused inside any option cluster, longs
// are refused by name (with or without =value).
type optionRefusal struct {
	shorts   string
	longs    []string
	oldStyle bool // the first argument may be an option cluster without a dash (tar czf)
}

var refusingCommands = map[string]optionRefusal{
	// -T/--files-from names files inside a file; -I and the *-command and
	// *-script options run programs; -h follows links, -P keeps absolute names.
	"tar": {shorts: "TIFhP", oldStyle: true, longs: []string{"files-from", "use-compress-program", "to-command",
		"checkpoint-action", "rsh-command", "rmt-command", "info-script", "new-volume-script", "dereference",
		"absolute-names"}},
	// --files-from names files inside a file; -e/--rsh and --rsync-path run
	// programs; -L and -k follow links.
	"rsync": {shorts: "eLk", longs: []string{"files-from", "rsh", "rsync-path", "copy-links", "copy-dirlinks",
		"copy-unsafe-links", "read-batch", "write-batch", "only-write-batch", "config"}},
	// -P/--pager, -H/--html and the preprocessor run programs; -C reads a config.
	"man": {shorts: "PHpCMl", longs: []string{"pager", "html", "preprocessor", "config-file", "manpath", "local-file"}},
	// a program that builds command lines from its input.
	"zip": {shorts: "T@", longs: []string{"unzip-command", "test", "names-stdin"}},
}

func refusingCommand(r optionRefusal) handler {
	return func(sa *shellAnalyzer, inv *invocation) []dirState {
		for i, a := range inv.args {
			if !a.known {
				continue
			}
			if name, ok := r.refused(a.val, i == 0); ok {
				sa.unprove(inv.name + " " + name + " takes file names from a file, runs a program or follows links")
			}
		}
		return unknownCommand(sa, inv)
	}
}

// refused reports the first refused option in one argument.
func (r optionRefusal) refused(a string, first bool) (string, bool) {
	switch {
	case strings.HasPrefix(a, "--"):
		name, _, _ := strings.Cut(a[2:], "=")
		for _, l := range r.longs {
			if name == l || (len(name) >= 3 && strings.HasPrefix(l, name)) {
				return "--" + name, true
			}
		}
	case strings.HasPrefix(a, "-") || (first && r.oldStyle):
		if i := strings.IndexAny(strings.TrimPrefix(a, "-"), r.shorts); i >= 0 {
			return "-" + string(strings.TrimPrefix(a, "-")[i]), true
		}
	}
	return "", false
}
