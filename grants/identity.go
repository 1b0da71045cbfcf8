package grants

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"

	"pathgrant/guard"
)

// identityOf records the device and inode of the canonical path at
// approval. Lstat, not Stat: a canonical path has no symlink in it, so a
// symlink found there later is a swap, even one pointing at the same file.
func identityOf(path string, kind guard.GrantKind, op guard.Op) (Identity, error) {
	if op == guard.OpConnect { // a destination has no file identity
		return Identity{}, nil
	}
	fi, err := os.Lstat(path)
	if err != nil {
		return Identity{}, fmt.Errorf("identity of %s: %w", path, err)
	}
	if kind == guard.KindFolder && !fi.IsDir() {
		return Identity{}, fmt.Errorf("%w: folder grant on %s, which is not a directory", ErrInvalid, path)
	}
	return fileIdentity(fi), nil
}

func fileIdentity(fi os.FileInfo) Identity {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return Identity{}
	}
	return Identity{Dev: uint64(st.Dev), Ino: uint64(st.Ino)}
}

// Replaced says why g's path no longer names the file or folder the
// person approved ("" when it still does), for a grant held outside the
// store's lookups (the engine's decided once grant).
func (g Grant) Replaced() (string, error) { return replaced(g) }

// replaced compares g's path with the identity recorded at approval. It
// returns why the path no longer is the approved one ("" when it still is),
// or an error when it cannot tell, which the caller treats as no match
// without invalidating (a transient EACCES is not a replacement).
func replaced(g Grant) (string, error) {
	if g.Op == guard.OpConnect {
		return "", nil
	}
	fi, err := os.Lstat(g.Path)
	switch {
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		return "path removed or renamed", nil
	case err != nil:
		return "", err
	case fi.Mode()&fs.ModeSymlink != 0:
		return "path replaced by a symlink", nil
	}
	now := fileIdentity(fi)
	if now != g.Identity {
		return fmt.Sprintf("path replaced: identity changed (dev:ino %d:%d -> %d:%d)",
			g.Identity.Dev, g.Identity.Ino, now.Dev, now.Ino), nil
	}
	return "", nil
}
