package sandbox

import (
	"slices"
	"strings"
)

// procRoot is where the kernel shows processes and itself.
const procRoot = "/proc"

// procSelf names the process that opens it. The inner step opens every
// rule's path itself, just before it becomes the command, so a rule on
// it (followed) binds to the command's own /proc/PID.
const procSelf = "/proc/self"

// LandlockSystemRules are SystemRules for the Landlock-only level, where
// /proc is the machine's own, every process in it: /proc as a tree would
// let a confined command read any process's command line (the person's
// `pathgrant approve`, a token passed as an argument) and status. So
// /proc is split: the kernel's own entries (cpuinfo, meminfo, sys, …)
// are readable as before, and of the process folders only the command's
// own, through /proc/self as the inner step resolves it. Landlock binds
// a rule to the folder it opened, so no other path reaches another
// process's folder (not /proc/self/root/proc/PID, not a link). What
// this costs, and why it is accepted: the processes the command starts
// cannot open their own /proc/self files (only readlink works, as for
// /proc/self/exe); the full level's PID namespace gives every process
// its own /proc, and doctor says to install bubblewrap. fsys lists /proc
// as it is when the command is prepared; an entry that cannot be listed
// leaves /proc out (nothing of it readable but the command's own).
func LandlockSystemRules(fsys FS) []Rule {
	rules := slices.DeleteFunc(SystemRules(), func(r Rule) bool { return r.Path == procRoot })
	rules = append(rules, Rule{Path: procSelf, Access: ReadOnly, Follow: true, Why: "system: the command's own /proc"})
	entries, err := fsys.ReadDir(procRoot)
	if err != nil {
		return rules
	}
	for _, e := range entries {
		if e.Type == TypeSymlink || processEntry(e.Name) {
			continue // self, thread-self, net, mounts: links into a process's folder
		}
		rules = append(rules, Rule{Path: procRoot + "/" + e.Name, Access: ReadOnly, Why: "system: the kernel's /proc"})
	}
	return rules
}

// processEntry reports whether a /proc entry's name is a process id.
func processEntry(name string) bool {
	return name != "" && strings.Trim(name, "0123456789") == ""
}
