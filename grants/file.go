package grants

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"

	bolt "go.etcd.io/bbolt"
)

// prepareDir creates the store's folder (0700) if needed and refuses one
// that another user owns or could write to: whoever can write the folder can
// swap the store file for their own grants.
func prepareDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create store folder %s: %w", dir, err)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("store folder %s: %w", dir, err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("store folder %s: %w: not a directory", dir, ErrUnsafeFile)
	}
	if uid := ownerOf(fi); uid != os.Geteuid() {
		return fmt.Errorf("store folder %s: %w: owned by uid %d, not %d", dir, ErrUnsafeFile, uid, os.Geteuid())
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("store folder %s: %w: writable by group or others (mode %04o): chmod 700 %s",
			dir, ErrUnsafeFile, fi.Mode().Perm(), dir)
	}
	return nil
}

// checkFileInfo refuses a store file that is not a regular file of ours
// with mode 0600 or narrower: grants and the audit trail are private.
func checkFileInfo(path string, fi os.FileInfo) error {
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("store %s: %w: not a regular file", path, ErrUnsafeFile)
	}
	if uid := ownerOf(fi); uid != os.Geteuid() {
		return fmt.Errorf("store %s: %w: owned by uid %d, not %d", path, ErrUnsafeFile, uid, os.Geteuid())
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("store %s: %w: mode %04o is wider than 0600: chmod 600 %s",
			path, ErrUnsafeFile, fi.Mode().Perm(), path)
	}
	return nil
}

func ownerOf(fi os.FileInfo) int {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int(st.Uid)
	}
	return -1
}

// openExisting is bbolt's OpenFile hook: it never creates the file (a
// missing store is created only by createStore, atomically), never follows a
// symlink, and re-checks owner and mode on the descriptor it got, so the file
// cannot be swapped between the checks and the open.
func openExisting(name string, flag int, _ os.FileMode) (*os.File, error) {
	f, err := os.OpenFile(name, flag&^os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if errors.Is(err, syscall.ELOOP) {
		return nil, fmt.Errorf("store %s: %w: is a symlink", name, ErrUnsafeFile)
	}
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil {
		err = checkFileInfo(name, fi)
	}
	if err == nil && fi.Size() == 0 {
		err = &CorruptError{Path: name, Cause: errors.New("file is empty")}
	}
	if err != nil {
		_ = f.Close()
		return nil, err
	}
	return f, nil
}

// createStore builds a new store under a temporary name and links it into
// place, so a crash can never leave a half-initialised file at path (an
// empty or partial file there is always reported as corrupt, never reused).
func createStore(path string, timeout time.Duration) error {
	tmp := fmt.Sprintf("%s.new-%s", path, rand.Text()[:10])
	defer func() { _ = os.Remove(tmp) }()
	db, err := bolt.Open(tmp, 0o600, &bolt.Options{Timeout: timeout, OpenFile: createExclusive})
	if err != nil {
		return fmt.Errorf("create store %s: %w", path, err)
	}
	err = db.Update(initSchema)
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("create store %s: %w", path, err)
	}
	return linkIntoPlace(tmp, path)
}

func createExclusive(name string, flag int, mode os.FileMode) (*os.File, error) {
	return os.OpenFile(name, flag|os.O_EXCL|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, mode)
}

// linkIntoPlace publishes tmp as path unless another process created path
// first, in which case theirs wins and is opened instead.
func linkIntoPlace(tmp, path string) error {
	err := os.Link(tmp, path)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		// Some file systems have no hard links; rename is atomic too.
		if rerr := os.Rename(tmp, path); rerr != nil {
			return fmt.Errorf("create store %s: %w", path, err)
		}
	}
	return syncDir(filepath.Dir(path))
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync store folder %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync store folder %s: %w", dir, err)
	}
	return nil
}
