package afterrun

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// quarantineTries bounds the fresh names a move aside tries: each is
// random, so a command cannot have taken them all first; running out
// means something is wrong, and the plant is made inert in place.
const quarantineTries = 8

// quarantine moves path aside to a name that was free (never replacing
// anything: a name made first cannot turn the move into a no-op or a
// loss), takes execute permission off a file, and reports it. When it
// cannot be moved, a file is made inert in place (emptied, no
// permissions); anything else is a failure of the check. What lies
// outside the write areas through a link is left alone (inside).
func (v *verifier) quarantine(path, why string) bool {
	if v.held[path] && StillPlaceholder(path) {
		return false // an empty folder another command's view mounts (Plan.Held): nothing in it, and moving it would unmount it there
	}
	switch in, err := v.where(path); {
	case err != nil:
		v.r.fail(path, why+"; where it lies could not be told: "+err.Error())
		return false
	case !in:
		v.r.add(path, why+"; it lies outside the workspace through a link: left alone")
		return false
	}
	dst, err := moveAside(path)
	if err == nil {
		if fi, err := os.Lstat(dst); err == nil && fi.Mode().IsRegular() {
			_ = os.Chmod(dst, fi.Mode().Perm()&^0o111)
		}
		v.r.add(path, why+" -> "+filepath.Base(dst))
		return true
	}
	if ierr := makeInert(path); ierr != nil {
		v.r.fail(path, why+"; moving it aside failed ("+err.Error()+") and so did emptying it ("+ierr.Error()+")")
		return false
	}
	v.r.add(path, why+"; moving it aside failed ("+err.Error()+"): emptied in place, no permissions left")
	return false
}

// moveAside renames path to path+Quarantined, or to that with a random
// suffix when it is taken, never replacing what is there. A folder that
// does not let its owner rename in it gets write and search back first.
func moveAside(path string) (string, error) {
	var last error
	for i := range quarantineTries {
		dst := path + Quarantined
		if i > 0 {
			dst += "-" + randomSuffix()
		}
		err := renameNoReplace(path, dst)
		if errors.Is(err, fs.ErrPermission) {
			if cerr := chmodAdd(filepath.Dir(path), 0o300); cerr == nil {
				err = renameNoReplace(path, dst)
			}
		}
		switch {
		case err == nil:
			return dst, nil
		case !errors.Is(err, fs.ErrExist):
			return "", err
		}
		last = err
	}
	return "", last
}

// makeInert empties a regular file in place and takes every permission
// off it: git reads nothing from it and runs nothing.
func makeInert(path string) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return errors.New("not a file")
	}
	if err := chmodAdd(path, 0o200); err != nil {
		return err
	}
	if err := os.Truncate(path, 0); err != nil {
		return err
	}
	return os.Chmod(path, 0)
}

func randomSuffix() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
