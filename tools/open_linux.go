package tools

import (
	"errors"
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// dirHandle opens a folder only to name files in it: O_PATH, which needs
// no read permission on the folder.
const dirHandle = unix.O_PATH

// openNoLinks opens the canonical path refusing every symlink on the way
// (RESOLVE_NO_SYMLINKS): the guard judged this exact path with its links
// resolved, so a link found now was swapped in since, and is not followed.
func openNoLinks(dirfd int, path string, flags int, mode uint32) (*os.File, error) {
	fd, err := unix.Openat2(dirfd, path, &unix.OpenHow{
		Flags:   uint64(flags | unix.O_CLOEXEC | unix.O_NOFOLLOW),
		Mode:    uint64(mode),
		Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	})
	if errors.Is(err, unix.ELOOP) {
		return nil, linkOnTheWay(path)
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}
