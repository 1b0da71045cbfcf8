//go:build linux && (amd64 || arm64)

package supervise

import (
	"errors"
	"fmt"
	"strconv"

	"golang.org/x/sys/unix"
)

// noLinks refuses every symlink and magic link on the way.
const noLinks = unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS

// errNotFile refuses what is neither a regular file nor a directory: a
// FIFO would block the supervisor, a device is no file to approve.
var errNotFile = errors.New("not a regular file or a directory")

// pin resolves h's name in the command's own view, when the call is
// examined and before anyone is asked: from its root for an absolute
// path (never above it), else beneath its working directory or the
// directory descriptor it gave, no link followed. The O_PATH descriptor
// it keeps is what the person is asked about and what is handed over:
// a file swapped in afterwards is not, and a name that does not exist
// (or names no regular file or directory) is never asked about.
//
// The descriptor lives in the view's own mounts: reopened, it is as
// read-only as the view shows it (no chmod, no xattr), and a folder's
// ".." leads where the view leads, never into the host's tree.
func pin(h *held) error {
	base, resolve := "/proc/"+strconv.Itoa(h.tid)+"/root", uint64(unix.RESOLVE_IN_ROOT|noLinks)
	if h.path[0] != '/' {
		base, resolve = procLink(h.tid, h.dirfd), unix.RESOLVE_BENEATH|noLinks
	}
	dir, err := unix.Open(base, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(dir)
	fd, err := unix.Openat2(dir, h.path, &unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC, Resolve: resolve})
	if err != nil {
		return err
	}
	if err := unix.Fstat(fd, &h.st); err != nil {
		unix.Close(fd)
		return err
	}
	switch h.st.Mode & unix.S_IFMT {
	case unix.S_IFREG:
		if h.flags&oDirectory != 0 {
			unix.Close(fd)
			return unix.ENOTDIR
		}
	case unix.S_IFDIR:
	default:
		unix.Close(fd)
		return errNotFile
	}
	h.pinned = fd
	return nil
}

// openApproved opens, for held call h, the file the person approved at
// approved: the file pinned in the command's view, reopened read-only,
// and only when approved names that very file here too (no link on the
// way). The descriptor is the supervisor's to hand over and close.
func openApproved(h held, approved string) (int, error) {
	here, err := unix.Openat2(unix.AT_FDCWD, approved, &unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC, Resolve: noLinks})
	if err != nil {
		if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.EXDEV) {
			return -1, errors.New("a link is on the way")
		}
		return -1, err
	}
	var st unix.Stat_t
	err = unix.Fstat(here, &st)
	unix.Close(here)
	if err != nil {
		return -1, err
	}
	if st.Dev != h.st.Dev || st.Ino != h.st.Ino {
		return -1, errors.New("the command's view names another file there")
	}
	fd, err := unix.Open("/proc/self/fd/"+strconv.Itoa(h.pinned),
		unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NOCTTY|unix.O_NONBLOCK|int(h.flags&oDirectory), 0)
	if err != nil {
		return -1, fmt.Errorf("reopen: %w", err)
	}
	if err := unix.Fstat(fd, &st); err != nil || st.Dev != h.st.Dev || st.Ino != h.st.Ino {
		unix.Close(fd)
		return -1, errors.New("the reopened file is not the one pinned")
	}
	if h.flags&oNonblock == 0 {
		if err := SetBlocking(fd); err != nil {
			unix.Close(fd)
			return -1, err
		}
	}
	return fd, nil
}

// SetBlocking clears O_NONBLOCK, which an open of a held file takes so
// that nothing can block it (the FUSE server's too).
func SetBlocking(fd int) error {
	fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	if err == nil {
		_, err = unix.FcntlInt(uintptr(fd), unix.F_SETFL, fl&^unix.O_NONBLOCK)
	}
	return err
}
