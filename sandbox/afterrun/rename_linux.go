package afterrun

import (
	"os"

	"golang.org/x/sys/unix"
)

// renameNoReplace renames from to to, failing with EEXIST when to exists.
func renameNoReplace(from, to string) error {
	if err := unix.Renameat2(unix.AT_FDCWD, from, unix.AT_FDCWD, to, unix.RENAME_NOREPLACE); err != nil {
		return &os.LinkError{Op: "rename", Old: from, New: to, Err: err}
	}
	return nil
}
