package afterrun

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"
)

// The command runs as the person's user, so it can take the owner's own
// permissions off what it made (chmod 0311 on a folder git can still
// enter, 0444 on a planted file in a 0555 folder). pathgrant's user owns
// the same files, so before it lists, reads or moves anything it gives
// back the access it needs, and says so: a folder it could not list is a
// failure of the check, never a line and a skip.

// list reads dir's entries, first giving the owner back read and search
// on it when they were taken away. dir lies inside the write areas by
// construction: the walk never follows a link, git directories are
// taken by their real path, and every place a link could lead out of
// the areas (core.hooksPath, worktrees/, modules/) is looked at first.
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

// inside reports whether p lies in a write area once the links on the
// way to it are followed (p itself is not followed). The check renames,
// empties and changes the modes of what lies inside only: a command can
// put a link anywhere the check looks (a linked worktrees or info
// folder, core.hooksPath through a linked folder), and what the link
// leads to is the person's, not the command's.
func (v *verifier) inside(p string) bool {
	in, err := v.where(p)
	return err == nil && in
}

// where is inside with the reason it could not tell.
func (v *verifier) where(p string) (bool, error) {
	d, err := filepath.EvalSymlinks(filepath.Dir(p))
	if err != nil {
		return false, err
	}
	return v.inArea(filepath.Join(d, filepath.Base(p))), nil
}

// sealed reports whether dir belongs to another user and cannot be
// searched by this one (a database's data folder a container made, uid
// 999, 0700). Nothing below it can be the command's (it runs as this
// user, who can neither create there nor give the folder's access back)
// nor reached by the person's git, so it is no failure of the check; a
// folder the user can search but not list is one (a plant may lie below).
func (v *verifier) sealed(dir string) bool {
	fi, err := os.Lstat(dir)
	if err != nil || !fi.IsDir() || v.uid == 0 || ownedBy(fi, v.uid) {
		return false
	}
	return errors.Is(unix.Access(dir, unix.X_OK), unix.EACCES)
}
