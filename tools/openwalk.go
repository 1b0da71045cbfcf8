package tools

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// errLinkOnTheWay is why an open found a symlink where the guard, which
// resolved every link before judging, saw none.
var errLinkOnTheWay = errors.New("a symlink is on the way (the path changed since it was checked)")

// errNotCanonical refuses a path with a .. component: a canonical path has
// none, so one here did not come from the guard.
var errNotCanonical = errors.New("a .. component (the path is not canonical)")

// linkOnTheWay is the one refusal of a symlink on path, whichever way the
// open was made.
func linkOnTheWay(path string) error {
	return fmt.Errorf("open %s: %w", path, errLinkOnTheWay)
}

// walkDirFlags open each folder on the way: a folder, never a link, never
// blocking (a FIFO there fails with ENOTDIR at once).
const walkDirFlags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_NONBLOCK | unix.O_CLOEXEC

// openWalk opens path as openNoLinks promises, with nothing but openat
// and O_NOFOLLOW, which every Unix has: from / (an absolute path) or dirfd,
// one component at a time, each folder opened O_DIRECTORY|O_NOFOLLOW and
// the last component with flags|O_NOFOLLOW, so a symlink anywhere is
// refused. It refuses .. outright. Each folder on the way is opened for
// reading, so, unlike a kernel lookup, it needs read permission on them,
// not only search.
func openWalk(dirfd int, path string, flags int, mode uint32) (*os.File, error) {
	names, err := components(path)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	cur, owned := dirfd, false
	if filepath.IsAbs(path) {
		if cur, err = unix.Open("/", walkDirFlags, 0); err != nil {
			return nil, &fs.PathError{Op: "open", Path: path, Err: err}
		}
		owned = true
	}
	for _, name := range names[:len(names)-1] {
		next, err := openComponent(cur, name, walkDirFlags, 0)
		if owned {
			_ = unix.Close(cur)
		}
		if err != nil {
			return nil, walkError(path, err)
		}
		cur, owned = next, true
	}
	fd, err := openComponent(cur, names[len(names)-1], flags|unix.O_NOFOLLOW|unix.O_CLOEXEC, mode)
	if owned {
		_ = unix.Close(cur)
	}
	if err != nil {
		return nil, walkError(path, err)
	}
	return os.NewFile(uintptr(fd), path), nil
}

// components are path's names to open in turn, "." for the starting
// folder itself; empty and "." names are dropped, .. is refused.
func components(path string) ([]string, error) {
	if path == "" {
		return nil, unix.ENOENT
	}
	var out []string
	for name := range strings.SplitSeq(path, "/") {
		switch name {
		case "", ".":
		case "..":
			return nil, errNotCanonical
		default:
			out = append(out, name)
		}
	}
	if len(out) == 0 {
		out = []string{"."}
	}
	return out, nil
}

// openComponent opens one name in dirfd, never through a symlink. A
// symlink is told apart whatever the OS answers for it (ELOOP; ENOTDIR
// when a folder was asked for, as Linux answers) and even when flags open
// the link itself (Linux's O_PATH|O_NOFOLLOW).
func openComponent(dirfd int, name string, flags int, mode uint32) (int, error) {
	fd, err := unix.Openat(dirfd, name, flags, mode)
	if err != nil {
		if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) && isLink(dirfd, name) {
			return -1, errLinkOnTheWay
		}
		return -1, err
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || uint32(st.Mode)&unix.S_IFMT == unix.S_IFLNK {
		_ = unix.Close(fd)
		if err != nil {
			return -1, err
		}
		return -1, errLinkOnTheWay
	}
	return fd, nil
}

// isLink reports whether name in dirfd is a symlink.
func isLink(dirfd int, name string) bool {
	var st unix.Stat_t
	return unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && uint32(st.Mode)&unix.S_IFMT == unix.S_IFLNK
}

// walkError is err as openNoLinks reports it for path: the one symlink
// refusal, else the OS's error naming the whole path.
func walkError(path string, err error) error {
	if errors.Is(err, errLinkOnTheWay) {
		return linkOnTheWay(path)
	}
	return &fs.PathError{Op: "open", Path: path, Err: err}
}
