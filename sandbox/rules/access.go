package rules

import (
	"fmt"
	"strings"
)

// Access is a set of Landlock file-system access rights. The bits are
// Landlock's own (LANDLOCK_ACCESS_FS_*), so package kernel passes an Access
// to the kernel unchanged.
type Access uint64

// The file-system rights of Landlock ABI 5 to 8, in Landlock's bit order.
const (
	Execute Access = 1 << iota
	WriteFile
	ReadFile
	ReadDir
	RemoveDir
	RemoveFile
	MakeChar
	MakeDir
	MakeReg
	MakeSock
	MakeFifo
	MakeBlock
	MakeSym
	Refer
	Truncate
	IoctlDev
)

// Rights granted by the rules, and the set the ruleset handles.
const (
	// Handled is every right the ruleset restricts: all file-system rights
	// up to ABI 8, including refer (renames and links across directories),
	// truncate and ioctl on devices. A right not granted by some rule on a
	// path's hierarchy is denied there.
	Handled = Execute | WriteFile | ReadFile | ReadDir | RemoveDir | RemoveFile | MakeChar | MakeDir |
		MakeReg | MakeSock | MakeFifo | MakeBlock | MakeSym | Refer | Truncate | IoctlDev

	// ReadOnly reads files and lists directories.
	ReadOnly = ReadFile | ReadDir
	// ReadExec adds running programs.
	ReadExec = ReadOnly | Execute
	// Write is everything that changes a tree: write and truncate files,
	// create and remove entries (no device nodes), rename and link within
	// write areas.
	Write = WriteFile | Truncate | RemoveDir | RemoveFile | MakeDir | MakeReg | MakeSock | MakeFifo |
		MakeSym | Refer
	// ReadWrite is a workspace's writable part.
	ReadWrite = ReadExec | Write
	// DeviceRW is a character device such as /dev/null: read, write,
	// truncate (a shell's `>` opens with O_TRUNC), no ioctl.
	DeviceRW = ReadFile | WriteFile | Truncate
	// FileRights are the rights that apply to a non-directory: a rule on
	// a file may hold no others.
	FileRights = Execute | WriteFile | ReadFile | Truncate | IoctlDev
)

var accessNames = []string{
	"execute", "write_file", "read_file", "read_dir", "remove_dir", "remove_file", "make_char",
	"make_dir", "make_reg", "make_sock", "make_fifo", "make_block", "make_sym", "refer", "truncate",
	"ioctl_dev",
}

// String lists the rights by their Landlock names, or "none".
func (a Access) String() string {
	if a == 0 {
		return "none"
	}
	var names []string
	for i, n := range accessNames {
		if a&(1<<i) != 0 {
			names = append(names, n)
		}
	}
	if rest := a &^ Handled; rest != 0 {
		names = append(names, "unknown")
	}
	return strings.Join(names, ",")
}

// Rule lets a file hierarchy (or one file) be reached with Access. Landlock
// rules only add rights: a path gets the union of the rules on it and on
// its ancestors, and everything else is denied.
type Rule struct {
	Path   string `json:"path"`
	Access Access `json:"access"`
	// Follow lets symlinks in Path be followed when the rule is applied.
	// Only system locations (/bin -> usr/bin) follow; policy paths are
	// canonical, so a symlink found in one was swapped in since, and the
	// rule is dropped.
	Follow bool `json:"follow,omitempty"`
	// File says the rule is for one file (a file grant): it is dropped if
	// the path is a directory, so it never covers a whole tree.
	File bool `json:"file,omitempty"`
	// Why names the part of the policy the rule comes from.
	Why string `json:"why"`
}

func (r Rule) String() string {
	return fmt.Sprintf("%s %s (%s)", r.Path, r.Access, r.Why)
}

// Job is what a front end hands the inner step inside the mount view (as
// a memory file): the rules to enforce and the command to run.
type Job struct {
	Rules []Rule   `json:"rules"`
	Path  string   `json:"path"`
	Argv  []string `json:"argv"`
	// Hold, when not 0, is the descriptor of the Unix socket the inner
	// step sends its seccomp listener on (package sandbox/supervise), so
	// that a read of an approvable file waits for the person.
	Hold int `json:"hold,omitempty"`
	// Isolate asks for the isolation filter (sandbox/kernel): no Unix
	// socket, no new session or process group, no io_uring. The
	// Landlock-only level sets it, where no mount view hides pathgrant's
	// socket and no PID namespace holds what the command starts.
	Isolate bool `json:"isolate,omitempty"`
	// Net, when not 0, is the descriptor of the Unix socket the inner
	// step hands its network namespace's loopback listener(s) out on,
	// listening at NetPort: the namespace's one way out, served by the
	// daemon's proxy outside the sandbox (wire.Prepared.Net).
	Net     int `json:"net,omitempty"`
	NetPort int `json:"net_port,omitempty"`
}
