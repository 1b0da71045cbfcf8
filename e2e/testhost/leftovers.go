//go:build linux

package testhost

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// ownerDir holds one file per host, named after its namespace and locked
// (flock) by the process that made it for as long as the host runs. A
// process that dies without its cleanups (a panic in another test, go
// test's -timeout, a kill) releases its locks, so the next Start can tell
// a dead host's namespace from a live one and delete it.
const ownerDir = "/run/pathgrant-testhost"

// claimPrefix names a claim not yet renamed to its namespace.
const claimPrefix = ".claim-"

// claim marks the namespace name as this process's until release. The file
// is locked before it takes the name, so no sweep ever sees the name
// unlocked while its owner lives.
func claim(name string) (*os.File, error) {
	if err := os.MkdirAll(ownerDir, 0o755); err != nil {
		return nil, fmt.Errorf("making %s: %w", ownerDir, err)
	}
	f, err := os.CreateTemp(ownerDir, claimPrefix+"*")
	if err != nil {
		return nil, fmt.Errorf("claiming namespace %s: %w", name, err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		os.Remove(f.Name())
		f.Close()
		return nil, fmt.Errorf("locking the claim on namespace %s: %w", name, err)
	}
	if err := os.Rename(f.Name(), filepath.Join(ownerDir, name)); err != nil {
		os.Remove(f.Name())
		f.Close()
		return nil, fmt.Errorf("claiming namespace %s: %w", name, err)
	}
	return f, nil
}

// release drops a claim once its namespace is gone.
func release(name string, f *os.File) error {
	err := os.Remove(filepath.Join(ownerDir, name))
	f.Close()
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("releasing namespace %s: %w", name, err)
	}
	return nil
}

// sweepLeftovers deletes the namespace of every host whose process died
// before its cleanup; the namespace takes its veth pair with it.
func sweepLeftovers() error {
	entries, err := os.ReadDir(ownerDir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading %s: %w", ownerDir, err)
	}
	var errs []error
	for _, e := range entries {
		// A claim not yet renamed is skipped: it names no namespace, and
		// its owner may be between creating and locking it.
		if name := e.Name(); strings.HasPrefix(name, "pgt-") {
			errs = append(errs, sweep(name))
		}
	}
	return errors.Join(errs...)
}

// sweep deletes one claim's namespace if its owner is gone; a lock it
// cannot take is a live host, left alone.
func sweep(name string) error {
	path := filepath.Join(ownerDir, name)
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("opening %s: %w", path, err)
	}
	defer f.Close()
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); errors.Is(err, unix.EWOULDBLOCK) {
		return nil
	} else if err != nil {
		return fmt.Errorf("locking %s: %w", path, err)
	}
	if _, err := os.Stat(filepath.Join(netnsDir, name)); err == nil {
		if err := ip("netns", "delete", name); err != nil {
			return fmt.Errorf("deleting a dead test host's namespace: %w", err)
		}
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("removing %s: %w", path, err)
	}
	return nil
}
