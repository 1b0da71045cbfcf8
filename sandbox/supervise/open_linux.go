//go:build linux && (amd64 || arm64)

package supervise

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// noLinks refuses every symlink and magic link on the way.
const noLinks = unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS

// openApproved opens, for held call h, the file the person approved:
// h.abs here, read-only, refusing any link on the way and anything but a
// regular file or a directory (a FIFO would block, a device is no file),
// and only when the command's own view resolves the name it gave to the
// very same file. The descriptor is the supervisor's to hand over and
// close.
func openApproved(h held) (int, error) {
	fd, err := unix.Openat2(unix.AT_FDCWD, h.abs, &unix.OpenHow{
		Flags:   unix.O_RDONLY | unix.O_CLOEXEC | unix.O_NOCTTY | unix.O_NONBLOCK | h.flags&oDirectory,
		Resolve: noLinks,
	})
	if err != nil {
		if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.EXDEV) {
			return -1, errors.New("a link is on the way")
		}
		return -1, err
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return -1, err
	}
	if err := check(h, st); err != nil {
		unix.Close(fd)
		return -1, err
	}
	if h.flags&oNonblock == 0 {
		if err := setBlocking(fd); err != nil {
			unix.Close(fd)
			return -1, err
		}
	}
	return fd, nil
}

// check accepts st, the file opened here, for h: a regular file or a
// directory, and the file the command's view names.
func check(h held, st unix.Stat_t) error {
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG, unix.S_IFDIR:
	default:
		return errors.New("not a regular file or a directory")
	}
	view, err := inView(h)
	if err != nil {
		return fmt.Errorf("the command's view of it: %w", err)
	}
	if view.Dev != st.Dev || view.Ino != st.Ino {
		return errors.New("the command's view names another file there")
	}
	return nil
}

// inView is what h's name resolves to in the command's own view now: from
// its root for an absolute path (never above it), else beneath its
// working directory or the directory descriptor it gave, with no link
// followed.
func inView(h held) (unix.Stat_t, error) {
	var st unix.Stat_t
	base, resolve := fmt.Sprintf("/proc/%d/root", h.tid), uint64(unix.RESOLVE_IN_ROOT|noLinks)
	if h.path[0] != '/' {
		base, resolve = procLink(h.tid, h.dirfd), unix.RESOLVE_BENEATH|noLinks
	}
	dir, err := unix.Open(base, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return st, err
	}
	defer unix.Close(dir)
	fd, err := unix.Openat2(dir, h.path, &unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC, Resolve: resolve})
	if err != nil {
		return st, err
	}
	defer unix.Close(fd)
	return st, unix.Fstat(fd, &st)
}

// setBlocking clears O_NONBLOCK, which the open took so that nothing
// could block it.
func setBlocking(fd int) error {
	fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	if err == nil {
		_, err = unix.FcntlInt(uintptr(fd), unix.F_SETFL, fl&^unix.O_NONBLOCK)
	}
	return err
}
