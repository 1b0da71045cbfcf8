package kernel

import (
	"errors"
	"fmt"
	"io/fs"
	"runtime"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"

	"pathgrant/sandbox/rules"
	"pathgrant/sandbox/supervise"
)

// ABI is the kernel's Landlock ABI version.
func ABI() (int, error) {
	return ll.LandlockGetABIVersion()
}

// config is the ruleset's handled rights: every file-system right of
// Landlock V7 (the same set as V5-V8) and, when scoped and from ABI 6,
// both IPC scopes, so the command can neither signal a process outside its
// domain (the daemon, the user's shell) nor connect to an abstract Unix
// socket made outside it (X11's, D-Bus's). The network is not handled.
func config(abi int) landlock.Config {
	cfg := landlock.Config{HandledAccessFS: landlock.V7.HandledAccessFS}
	if abi >= ScopeABI {
		cfg.Scoped = landlock.ScopedSet(ll.ScopeAbstractUnixSocket | ll.ScopeSignal)
	}
	return cfg
}

// Ruleset is a Landlock ruleset built from sandbox rules, not yet
// enforced. Applied and Skipped say what became of each rule.
type Ruleset struct {
	fd int
	// Scoped says signals and abstract Unix sockets are scoped.
	Scoped bool
	// Isolate installs the isolation filter (isolate_linux.go) as well:
	// the Landlock-only level's job asks for it (rules.Job.Isolate).
	Isolate bool
	Applied []rules.Rule
	Skipped []Skipped
}

// NewRuleset builds the kernel ruleset for the rules rs. Each path is opened now
// (O_PATH), so the rule binds to the inode found there: a policy path
// (not Follow) is opened without following any symlink, so a link swapped
// in for a granted path is skipped rather than followed. A path that
// cannot be opened is skipped; a rule the kernel refuses fails the whole
// ruleset.
func NewRuleset(rs []rules.Rule) (*Ruleset, error) {
	abi, err := ABI()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	cfg := config(abi)
	if uint64(cfg.HandledAccessFS) != uint64(rules.Handled) {
		return nil, fmt.Errorf("landlock ruleset: handled rights %v differ from the rules' %v", cfg.HandledAccessFS, rules.Handled)
	}
	fd, _, err := cfg.NewRulesetFD()
	if err != nil {
		return nil, fmt.Errorf("%w: create ruleset: %v", ErrUnavailable, err)
	}
	if fd < 0 {
		return nil, errors.New("landlock ruleset: nothing to restrict")
	}
	set := &Ruleset{fd: fd, Scoped: cfg.Scoped != 0}
	for _, r := range rs {
		if err := set.add(r); err != nil {
			set.Close()
			return nil, err
		}
	}
	return set, nil
}

// add adds one rule, or records why it was skipped.
func (rs *Ruleset) add(r rules.Rule) error {
	fd, isDir, err := openRule(r)
	if err != nil {
		rs.Skipped = append(rs.Skipped, Skipped{r, err})
		return nil
	}
	defer unix.Close(fd)
	access := r.Access
	switch {
	case r.File && isDir:
		rs.Skipped = append(rs.Skipped, Skipped{r, errors.New("a file rule found a directory")})
		return nil
	case !isDir:
		access &= rules.FileRights
	}
	if access == 0 {
		rs.Skipped = append(rs.Skipped, Skipped{r, errors.New("no rights left for a file")})
		return nil
	}
	attr := ll.PathBeneathAttr{ParentFd: fd, AllowedAccess: uint64(access)}
	if err := ll.LandlockAddPathBeneathRule(rs.fd, &attr, 0); err != nil {
		return fmt.Errorf("landlock rule %s: %w", r, err)
	}
	r.Access = access
	rs.Applied = append(rs.Applied, r)
	return nil
}

// openRule opens the rule's path with O_PATH: following links only for a
// Follow rule, else refusing any symlink or magic link on the way.
func openRule(r rules.Rule) (fd int, isDir bool, err error) {
	if r.Follow {
		fd, err = unix.Open(r.Path, unix.O_PATH|unix.O_CLOEXEC, 0)
	} else {
		fd, err = unix.Openat2(unix.AT_FDCWD, r.Path, &unix.OpenHow{
			Flags:   unix.O_PATH | unix.O_CLOEXEC,
			Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
		})
	}
	if err != nil {
		if errors.Is(err, unix.ELOOP) {
			err = fmt.Errorf("a symlink is on the way (the path changed since it was approved): %w", err)
		}
		return -1, false, &fs.PathError{Op: "open", Path: r.Path, Err: err}
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return -1, false, &fs.PathError{Op: "stat", Path: r.Path, Err: err}
	}
	return fd, st.Mode&unix.S_IFMT == unix.S_IFDIR, nil
}

// Close releases the ruleset without enforcing it.
func (rs *Ruleset) Close() error {
	if rs.fd < 0 {
		return nil
	}
	err := unix.Close(rs.fd)
	rs.fd = -1
	return err
}

// Exec enforces the ruleset and replaces the process with the program at
// path. With hold not 0, the command's opens are first sent to the
// supervisor on the socket at that descriptor (supervise.Install); where
// that fails the command runs without it and warn says why once. The restriction is put on the calling OS thread, which is locked
// to this goroutine and never unlocked, and the same thread then execs:
// the new program inherits the restriction (and no_new_privs, so no setuid
// program can shed it). Exec returns only on failure; after a failed
// enforcement nothing has run, after a failed exec the thread stays
// restricted, and either way the caller must exit.
func (rs *Ruleset) Exec(path string, argv, env []string, hold int, warn func(error)) error {
	return rs.lockAndRun(hold, warn, func() error {
		if err := syscall.Exec(path, argv, env); err != nil {
			return fmt.Errorf("exec %s: %w", path, err)
		}
		return nil
	})
}

// lockAndRun locks the calling goroutine to its OS thread for good,
// restricts the thread and calls run on it.
func (rs *Ruleset) lockAndRun(hold int, warn func(error), run func() error) error {
	runtime.LockOSThread()
	if err := rs.enforce(hold, warn); err != nil {
		return err
	}
	return run()
}

// enforce restricts the calling thread: no_new_privs, the supervisor's
// filter when hold is set (before Landlock, whose own calls it need not
// see), the isolation filter when asked (after the supervisor's, which
// is handed over a Unix socket), then Landlock.
func (rs *Ruleset) enforce(hold int, warn func(error)) error {
	defer rs.Close()
	if rs.fd < 0 {
		return errors.New("landlock: ruleset already closed")
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("landlock: set no_new_privs: %w", err)
	}
	if hold > 0 {
		switch err := supervise.Install(hold); {
		case errors.Is(err, supervise.ErrNotInstalled):
			if warn != nil {
				warn(err)
			}
		case err != nil: // a filter no one answers would fail every open
			return fmt.Errorf("hold opens: %w", err)
		}
	}
	if rs.Isolate {
		if err := installIsolation(); err != nil {
			return err
		}
	}
	if err := ll.LandlockRestrictSelf(rs.fd, 0); err != nil {
		return fmt.Errorf("landlock: restrict: %w", err)
	}
	return nil
}
