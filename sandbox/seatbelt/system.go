package seatbelt

import (
	"slices"
	"strings"
)

// rule is one rule of the system section, with the comment above it.
type rule struct {
	why     string
	verb    string // allow or deny
	ops     []string
	filters []string // written as they go in the profile
}

// The operation sets the rules grant or take away.
var (
	readOps  = []string{"file-read*"}
	execOps  = []string{"file-map-executable", "process-exec"}
	writeOps = []string{"file-write*", "file-link"}
)

// Where programs and their libraries are, read and run: the base system
// (/usr with /usr/local, as the Linux view shows /usr), the frameworks
// and the shared library cache under /System, Apple's own additions to
// /Library (Rosetta's runtime), the Command Line Tools and the frameworks
// installers put in /Library/Frameworks (Python.org's). Not /Applications
// (a toolchain there is a device policy root), not the rest of /Library
// (preferences, keychains, other applications' support files).
var systemRunPaths = []string{"/bin", "/sbin", "/usr", "/System", "/Library/Apple", "/Library/Developer", "/Library/Frameworks"}

// systemVolumes holds the roots of the other volumes, the data volume's
// among them: /System/Volumes/Data/Users is every home folder again under
// another name. Only the cryptexes (where macOS 13 and later keep the
// shared library cache) are read there.
const (
	systemVolumes = "/System/Volumes"
	cryptexes     = "/System/Volumes/Preboot/Cryptexes"
)

// systemReadPaths are read, never run or written: the system's
// configuration (/etc is a link to /private/etc), time zones (/etc/localtime
// links there), /bin/sh's choice of shell (/private/var/select/sh), the
// developer folder xcode-select chose (the link itself), and the
// resolver's file (/etc/resolv.conf links there).
var systemReadPaths = []string{"/private/etc", "/private/var/db/timezone", "/private/var/select"}

var systemReadFiles = []string{"/private/var/db/xcode_select_link", "/private/var/run/resolv.conf"}

// devices are the character devices commands open by name; /dev/fd and
// the standard streams' names reopen what the command already holds.
var devices = []string{"/dev/null", "/dev/zero", "/dev/random", "/dev/urandom", "/dev/tty", "/dev/dtracehelper"}

// machServices are the only system services a command may look up: user
// and group names (getpwuid: git, ls -l, ssh), group membership, the
// resolver's configuration and TLS certificate trust (HTTPS from Go,
// curl and others). Left out on purpose, as the Linux view hides the
// session bus and the display: the pasteboard, LaunchServices (open, and
// so any application), the keychain (securityd), AppleEvents, the
// preferences daemon, TCC.
var machServices = []string{
	"com.apple.system.opendirectoryd.libinfo",
	"com.apple.system.opendirectoryd.membership",
	"com.apple.SystemConfiguration.DNSConfiguration",
	"com.apple.trustd",
	"com.apple.trustd.agent",
}

// systemRules are the rules before the view's steps: what every command
// needs to run at all on macOS, whatever the session's policy.
func systemRules() []rule {
	return []rule{
		{"A command starts others; it signals and inspects only its own sandbox's processes (Landlock's signal scope).",
			"allow", []string{"process-fork"}, nil},
		{"", "allow", []string{"signal"}, []string{"(target same-sandbox)"}},
		{"", "allow", []string{"process-info*"}, []string{"(target same-sandbox)"}},
		{"System facts programs size themselves by (CPUs, memory, OS version), but not other processes' arguments and environment.",
			"allow", []string{"sysctl-read"}, nil},
		{"", "deny", []string{"sysctl-read"}, []string{`(sysctl-name-prefix "kern.procargs")`}},
		{"Named semaphores and shared memory (Python's multiprocessing).",
			"allow", []string{"ipc-posix-sem", "ipc-posix-shm"}, nil},
		{"User and group names, group membership, the resolver's configuration, TLS certificate trust; no other service.",
			"allow", []string{"mach-lookup"}, globalNames(machServices)},
		{"The network is not restricted (no network namespace here, unlike Linux); names resolve through mDNSResponder's socket.",
			"allow", []string{"system-socket"}, nil},
		{"", "allow", []string{"network-outbound"}, []string{`(remote ip "*:*")`}},
		{"", "allow", []string{"network-bind", "network-inbound"}, []string{`(local ip "*:*")`}},
		{"", "allow", []string{"network-outbound"}, []string{`(remote unix-socket (path-literal "/private/var/run/mDNSResponder"))`}},
		{"Where programs and their libraries are: read and run.",
			"allow", slices.Concat(readOps, execOps), subpaths(systemRunPaths)},
		{"Not the other volumes' roots (the data volume's holds every home folder again), but the cryptexes (the shared library cache).",
			"deny", slices.Concat(readOps, execOps), subpaths([]string{systemVolumes})},
		{"", "allow", slices.Concat(readOps, execOps), subpaths([]string{cryptexes})},
		{"Configuration, time zones, /bin/sh's shell, xcode-select's choice, the resolver's file: read only.",
			"allow", readOps, slices.Concat(subpaths(systemReadPaths), literals(systemReadFiles))},
		{"The links at the top (/etc, /tmp, /var) can be looked at, as programs resolving a path do.",
			"allow", []string{"file-read-metadata"}, literals([]string{"/etc", "/tmp", "/var"})},
		{"Devices commands open by name; /dev/fd and the standard streams' names reopen what the command holds.",
			"allow", []string{"file-read*", "file-write-data", "file-ioctl"}, literals(devices)},
		{"", "allow", []string{"file-read*", "file-write-data"},
			slices.Concat(subpaths([]string{"/dev/fd"}), literals([]string{"/dev/stdin", "/dev/stdout", "/dev/stderr"}))},
		{"Pseudo-terminals the command opens itself (script, expect, a REPL's pty); a terminal already on a standard stream answers isatty and its size.",
			"allow", []string{"pseudo-tty"}, nil},
		{"", "allow", []string{"file-read*", "file-write-data", "file-ioctl"}, literals([]string{"/dev/ptmx"})},
		{"", "allow", []string{"file-read*", "file-write-data", "file-ioctl"},
			[]string{`(require-all (regex #"^/dev/ttys[0-9]+$") (extension "com.apple.sandbox.pty"))`}},
		{"", "allow", []string{"file-ioctl"}, []string{`(regex #"^/dev/ttys[0-9]+$")`}},
	}
}

// systemPaths are the places the system rules let a command read or look
// at: their folders' metadata is allowed too (ancestors).
func systemPaths() []string {
	return slices.Concat(systemRunPaths, []string{cryptexes}, systemReadPaths, systemReadFiles, devices,
		[]string{"/dev/fd", "/dev/ptmx"})
}

// SystemReads reports whether the system rules let a command read path
// (absolute and clean), whatever its session: a refusal a command met
// there is not the session's to explain.
func SystemReads(path string) bool {
	in := func(roots []string) bool {
		return slices.ContainsFunc(roots, func(r string) bool { return within(r, path) })
	}
	switch {
	case within(cryptexes, path):
		return true
	case within(systemVolumes, path):
		return false
	}
	return in(systemRunPaths) || in(systemReadPaths) || slices.Contains(systemReadFiles, path) ||
		slices.Contains(devices, path) || within("/dev/fd", path)
}

// within reports whether path is root or lies below it.
func within(root, path string) bool {
	return path == root || strings.HasPrefix(path, strings.TrimSuffix(root, "/")+"/")
}

func subpaths(paths []string) []string { return filters("subpath", paths) }
func literals(paths []string) []string { return filters("literal", paths) }

// filters names each of paths with kind. The paths are this file's own,
// plain ASCII with nothing to escape (TestSystemPathsNeedNoEscaping).
func filters(kind string, paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = "(" + kind + ` "` + p + `")`
	}
	return out
}

func globalNames(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = `(global-name "` + n + `")`
	}
	return out
}
