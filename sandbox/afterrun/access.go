package afterrun

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// The command runs as the person's user, so it can take the owner's own
// permissions off what it made (chmod 0311 on a folder git can still
// enter, 0444 on a planted file in a 0555 folder). pathgrant's user owns
// the same files, so before it lists, reads or moves anything it gives
// back the access it needs, and says so: a folder it could not list is a
// failure of the check, never a line and a skip.

// list reads dir's entries, first giving the owner back read and search
// on it when they were taken away.
func (v *verifier) list(dir string) ([]fs.DirEntry, error) {
	fi, err := os.Lstat(dir)
	if err != nil {
		return nil, err
	}
	if missing := 0o500 &^ fi.Mode().Perm(); missing != 0 && ownedBy(fi, v.uid) {
		if err := chmodAdd(dir, 0o500); err != nil {
			return nil, err
		}
		v.r.add(dir, "a folder without read or search permission for its owner: made readable again to check it")
	}
	return os.ReadDir(dir)
}

// chmodAdd adds bits to path's permissions (not following a link).
func chmodAdd(path string, bits os.FileMode) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return errors.New("a link has no permissions of its own")
	}
	return os.Chmod(path, fi.Mode().Perm()|bits|fi.Mode()&(fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky))
}

// ownedBy reports whether fi belongs to uid; root (which ignores
// permissions) needs nothing given back.
func ownedBy(fi os.FileInfo, uid int) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return uid != 0 && ok && int(st.Uid) == uid
}
