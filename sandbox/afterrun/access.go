package afterrun

import (
	"errors"
	"io"
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

// access gives the owner back read and search on dir when they were
// taken away, and says so.
func (v *verifier) access(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if missing := 0o500 &^ fi.Mode().Perm(); missing != 0 && ownedBy(fi, v.uid) {
		if err := chmodAdd(dir, 0o500); err != nil {
			return err
		}
		v.r.add(dir, "a folder without read or search permission for its owner: made readable again to check it")
	}
	return nil
}

// listBatch is how many entries each reads at a time: a folder of ten
// million names costs the daemon one batch of memory, not the whole
// listing.
const listBatch = 1024

// each calls fn with every entry of dir, a batch at a time, after giving
// the owner back the access a listing needs.
func (v *verifier) each(dir string, fn func(fs.DirEntry)) error {
	if err := v.access(dir); err != nil {
		return err
	}
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	for {
		es, err := f.ReadDir(listBatch)
		for _, e := range es {
			fn(e)
		}
		switch {
		case errors.Is(err, io.EOF):
			return nil
		case err != nil:
			return err
		}
	}
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
