package tools

import (
	"os"

	"golang.org/x/sys/unix"
)

// dirHandle opens a folder only to name files in it. macOS has no O_PATH,
// so the folder is opened for reading, as openWalk opens every folder on
// the way.
const dirHandle = unix.O_RDONLY

// openNoLinks opens the canonical path refusing every symlink on the way:
// the guard judged this exact path with its links resolved, so a link
// found now was swapped in since, and is not followed. macOS has no
// openat2, so the path is walked one component at a time (openWalk).
func openNoLinks(dirfd int, path string, flags int, mode uint32) (*os.File, error) {
	return openWalk(dirfd, path, flags, mode)
}
