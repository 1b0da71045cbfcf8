package sandbox

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"pathgrant/guard"
)

// TmpBase is the folder that holds the sessions' private tmp dirs:
// $XDG_RUNTIME_DIR/pathgrant-exec (a per-user tmpfs) when that is set and
// absolute, else $TMPDIR (default /tmp)/pathgrant-exec-$UID. It is never
// the daemon's own socket folder, which is protected.
func TmpBase(getenv func(string) string) string {
	if dir := getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(dir) {
		return filepath.Join(dir, "pathgrant-exec")
	}
	tmp := getenv("TMPDIR")
	if !filepath.IsAbs(tmp) {
		tmp = "/tmp"
	}
	return filepath.Join(tmp, fmt.Sprintf("pathgrant-exec-%d", os.Getuid()))
}

// SessionTmpDir creates (or reuses) the session's private tmp dir under
// base and returns its canonical path. Both folders are 0700 and must be
// real directories owned by this user: in a shared /tmp anyone could have
// created them first. A session id that is not a plain file name is
// hashed.
func SessionTmpDir(base, session string) (string, error) {
	if session == "" {
		return "", errors.New("session tmp dir: no session id")
	}
	if err := ownDir(base); err != nil {
		return "", err
	}
	dir := filepath.Join(base, dirName(session))
	if err := ownDir(dir); err != nil {
		return "", err
	}
	canon, err := guard.Canonicalizer{}.Canonical(dir, "/", true)
	if err != nil {
		return "", fmt.Errorf("session tmp dir %s: %w", dir, err)
	}
	return canon, nil
}

// ownDir makes dir (0700) if missing and checks it is a directory, not a
// link, owned by this user and closed to everyone else.
func ownDir(dir string) error {
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("session tmp dir: %w", err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("session tmp dir: %w", err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case !fi.IsDir():
		return fmt.Errorf("session tmp dir: %s is not a directory", dir)
	case !ok || int(st.Uid) != os.Getuid():
		return fmt.Errorf("session tmp dir: %s is not owned by this user", dir)
	case fi.Mode().Perm()&0o077 != 0:
		return fmt.Errorf("session tmp dir: %s is open to other users (mode %v)", dir, fi.Mode().Perm())
	}
	return nil
}

// dirName is session when it is a plain name, else a hash of it.
func dirName(session string) string {
	if strings.Trim(session, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") == "" && len(session) <= 128 {
		return session
	}
	sum := sha256.Sum256([]byte(session))
	return "h-" + hex.EncodeToString(sum[:16])
}

// EmptyDirIn makes (or finds) dir/pathgrant-empty, an empty folder of mode 0555
// for ViewConfig.EmptyDir, and returns it; "" when it cannot, or when it
// is not empty (then the view falls back to a tmpfs per place). dir must
// be a folder no confined command can write (the daemon's runtime
// folder, hidden from every view).
func EmptyDirIn(dir string) string {
	p := filepath.Join(dir, "pathgrant-empty")
	if err := os.Mkdir(p, 0o555); err != nil && !os.IsExist(err) {
		return ""
	}
	fi, err := os.Lstat(p)
	if err != nil || !fi.IsDir() || fi.Mode().Perm()&0o222 != 0 {
		return ""
	}
	if es, err := os.ReadDir(p); err != nil || len(es) > 0 {
		return ""
	}
	return p
}
