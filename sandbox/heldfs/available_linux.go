//go:build linux

package heldfs

import (
	"fmt"
	"os"
	"os/exec"

	"golang.org/x/sys/unix"
)

// Available says why the held-open file system cannot be mounted here, or
// nil: fusermount3 is on PATH and /dev/fuse opens for reading and writing
// as this user (fusermount3 opens it with the user's rights; Debian leaves
// it 0666 where a desktop's udev runs, 0600 on some servers).
func Available() error {
	if _, err := exec.LookPath("fusermount3"); err != nil {
		return fmt.Errorf("no fusermount3 (Debian's fuse3 package)")
	}
	fd, err := unix.Open("/dev/fuse", unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		if fi, serr := os.Stat("/dev/fuse"); serr == nil {
			return fmt.Errorf("/dev/fuse (mode %04o) does not open for you: %w", fi.Mode().Perm(), err)
		}
		return fmt.Errorf("no /dev/fuse: %w", err)
	}
	unix.Close(fd)
	return nil
}
