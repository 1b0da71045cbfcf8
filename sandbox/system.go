package sandbox

import (
	"io/fs"
	"os"

	"pathgrant/guard"
)

// systemTrees are the locations programs are run from, readable and
// executable as trees: the dynamic loader and shared libraries live here.
var systemTrees = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"}

// systemReadOnly are read as trees, never executed or written: system
// configuration and the process information programs look up about
// themselves.
var systemReadOnly = []string{"/etc", "/proc"}

// systemDevices are the character devices commands commonly open by name.
var systemDevices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty"}

// SystemRules are the locations any command needs in order to run at all,
// whatever the session's policy. Paths that do not exist on this machine
// are dropped when the rules are applied.
func SystemRules() []Rule {
	var rules []Rule
	for _, p := range systemTrees {
		rules = append(rules, Rule{Path: p, Access: ReadExec, Follow: true, Why: "system"})
	}
	for _, p := range systemReadOnly {
		rules = append(rules, Rule{Path: p, Access: ReadOnly, Follow: true, Why: "system"})
	}
	for _, p := range systemDevices {
		rules = append(rules, Rule{Path: p, Access: DeviceRW, Follow: true, File: true, Why: "device"})
	}
	return rules
}

// OSFS is the real file system.
type OSFS struct{}

// ReadDir lists dir; entry types are the entries' own (links not followed).
func (OSFS) ReadDir(dir string) ([]Entry, error) {
	des, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	out := make([]Entry, 0, len(des))
	for _, d := range des {
		e := Entry{Name: d.Name()}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			e.Type = TypeSymlink
		case d.IsDir():
			e.Type = TypeDir
		}
		out = append(out, e)
	}
	return out, nil
}

// Canonical resolves path as the guard does.
func (OSFS) Canonical(path string) (string, error) {
	return guard.Canonicalizer{}.Canonical(path, "/", true)
}

// Type is the entry type of path, links not followed.
func (OSFS) Type(path string) (EntryType, error) {
	fi, err := os.Lstat(path)
	switch {
	case err != nil:
		return TypeOther, err
	case fi.Mode()&fs.ModeSymlink != 0:
		return TypeSymlink, nil
	case fi.IsDir():
		return TypeDir, nil
	}
	return TypeOther, nil
}
