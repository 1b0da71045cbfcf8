package guard

import (
	"path/filepath"

	"golang.org/x/sys/unix"
)

// resolveKernel answers for the common case, a path with no symlink in it,
// in one openat2 call: with RESOLVE_NO_SYMLINKS the kernel refuses to follow
// any link, so if the open succeeds, every component exists and none is a
// link, and the lexically cleaned path is exactly where the kernel went.
// ok is false for anything else (a link on the way, a missing file, an
// older kernel); the caller then walks the components one by one.
func resolveKernel(abs string, followLast bool) (string, bool) {
	how := unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC, Resolve: unix.RESOLVE_NO_SYMLINKS}
	if !followLast {
		how.Flags |= unix.O_NOFOLLOW
	}
	fd, err := unix.Openat2(unix.AT_FDCWD, abs, &how)
	if err != nil {
		return "", false
	}
	unix.Close(fd)
	if clean := filepath.Clean(abs); clean != abs {
		return clean, true
	}
	return abs, true
}
