// Package confine starts the shell commands of package tools confined by
// Landlock to a session's effective permissions: the rules are the ones
// package sandbox builds for `pathgrant exec`, from the same policy, and
// a kernel without Landlock ABI 5 refuses to run anything.
//
// `pathgrant exec` restricts itself and then replaces its process with
// the command. A daemon cannot do that, so Start restricts one locked OS
// thread and starts the command from it: a child inherits the restriction
// (and no_new_privs) of the thread that forked it. The thread is never
// unlocked, so the Go runtime ends it when its goroutine returns and
// nothing else ever runs under the restriction, or outside it by mistake.
package confine

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"

	"pathgrant/ipc"
	"pathgrant/sandbox"
	"pathgrant/sandbox/kernel"
	"pathgrant/tools"
)

// Landlock is a tools.Confiner. The zero value uses the real kernel and
// environment.
type Landlock struct {
	Probe  kernel.Probe            // kernel.ABI when nil
	Getenv func(key string) string // os.Getenv when nil; for the tmp dir base
}

var _ tools.Confiner = Landlock{}

// Start builds the session's rules now, then starts cmd under them with
// TMPDIR set to the session's private tmp dir. It fails closed: no
// Landlock, a rule the kernel refuses, or anything else wrong starts
// nothing.
func (l Landlock) Start(cmd *exec.Cmd, c tools.Confinement) error {
	probe, getenv := l.Probe, l.Getenv
	if probe == nil {
		probe = kernel.ABI
	}
	if getenv == nil {
		getenv = os.Getenv
	}
	if _, err := kernel.Available(probe); err != nil {
		return err
	}
	tmp, err := sandbox.SessionTmpDir(sandbox.TmpBase(getenv), c.Session)
	if err != nil {
		return err
	}
	rules, err := sandbox.Build(sandbox.Input{Policy: policyOf(c), TmpDir: tmp, System: sandbox.SystemRules()}, sandbox.OSFS{})
	if err != nil {
		return err
	}
	fd, err := newRuleset(rules)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	cmd.Env = append(slices.DeleteFunc(slices.Clone(cmd.Env), func(kv string) bool { return strings.HasPrefix(kv, "TMPDIR=") }),
		"TMPDIR="+tmp)
	done := make(chan error, 1)
	go startRestricted(fd, cmd, done)
	return <-done
}

// startRestricted restricts the calling thread with the ruleset and
// starts cmd from it. It never unlocks the thread: the runtime ends it
// with this goroutine.
func startRestricted(fd int, cmd *exec.Cmd, done chan<- error) {
	runtime.LockOSThread()
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		done <- fmt.Errorf("landlock: set no_new_privs: %w", err)
		return
	}
	if err := ll.LandlockRestrictSelf(fd, 0); err != nil {
		done <- fmt.Errorf("landlock: restrict: %w", err)
		return
	}
	done <- cmd.Start()
}

// policyOf is the confinement in the form sandbox.Build takes.
func policyOf(c tools.Confinement) ipc.Policy {
	p := c.Policy
	return ipc.Policy{Session: c.Session, Cwd: p.Cwd, Workspace: p.Workspace, ReadOnly: p.ReadOnly,
		BlockedWrite: p.BlockedWrite, Protected: p.Protected, Grants: c.Grants}
}

// newRuleset creates the kernel ruleset for rules, each bound to the inode
// its path names now: a policy path is opened refusing any symlink on the
// way (only system rules follow links), and one that cannot be opened is
// left out, which only takes rights away. This is what kernel.NewRuleset
// does for `pathgrant exec`.
func newRuleset(rules []sandbox.Rule) (int, error) {
	cfg := landlock.Config{HandledAccessFS: landlock.V7.HandledAccessFS}
	if uint64(cfg.HandledAccessFS) != uint64(sandbox.Handled) {
		return -1, fmt.Errorf("landlock ruleset: handled rights %v differ from the rules' %v", cfg.HandledAccessFS, sandbox.Handled)
	}
	fd, _, err := cfg.NewRulesetFD()
	if err != nil {
		return -1, fmt.Errorf("%w: create ruleset: %v", kernel.ErrUnavailable, err)
	}
	if fd < 0 {
		return -1, errors.New("landlock ruleset: nothing to restrict")
	}
	for _, r := range rules {
		if err := addRule(fd, r); err != nil {
			unix.Close(fd)
			return -1, err
		}
	}
	return fd, nil
}

func addRule(rulesetFD int, r sandbox.Rule) error {
	fd, isDir, err := openRule(r)
	if err != nil {
		return nil // left out: fewer rights, never more
	}
	defer unix.Close(fd)
	access := r.Access
	switch {
	case r.File && isDir:
		return nil
	case !isDir:
		access &= sandbox.FileRights
	}
	if access == 0 {
		return nil
	}
	attr := ll.PathBeneathAttr{ParentFd: fd, AllowedAccess: uint64(access)}
	if err := ll.LandlockAddPathBeneathRule(rulesetFD, &attr, 0); err != nil {
		return fmt.Errorf("landlock rule %s: %w", r, err)
	}
	return nil
}

func openRule(r sandbox.Rule) (fd int, isDir bool, err error) {
	if r.Follow {
		fd, err = unix.Open(r.Path, unix.O_PATH|unix.O_CLOEXEC, 0)
	} else {
		fd, err = unix.Openat2(unix.AT_FDCWD, r.Path, &unix.OpenHow{
			Flags:   unix.O_PATH | unix.O_CLOEXEC,
			Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
		})
	}
	if err != nil {
		return -1, false, &fs.PathError{Op: "open", Path: r.Path, Err: err}
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return -1, false, &fs.PathError{Op: "stat", Path: r.Path, Err: err}
	}
	return fd, st.Mode&unix.S_IFMT == unix.S_IFDIR, nil
}
