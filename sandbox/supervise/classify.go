package supervise

import (
	"path/filepath"
	"strings"
)

// Open flags, Linux's own values (the same on amd64 and arm64).
const (
	oAccMode   = 0o3
	oCreat     = 0o100
	oTrunc     = 0o1000
	oNonblock  = 0o4000
	oDirectory = 0o200000
	oNofollow  = 0o400000
	oCloexec   = 0o2000000
	oPath      = 0o10000000
	oTmpfile   = 0o20000000 // __O_TMPFILE; O_TMPFILE adds O_DIRECTORY
)

// notReadOnly are the flag bits that make an open anything but a plain
// read: writing, creating, truncating, a temporary file, or a path-only
// descriptor (O_PATH, which a held open must never be turned into a
// readable one for). The seccomp filter lets such opens go straight to
// the kernel; the supervisor checks again on openat2's flags.
const notReadOnly = oAccMode | oCreat | oTrunc | oPath | oTmpfile

// ReadOnly reports whether an open with flags only reads.
func ReadOnly(flags uint64) bool { return flags&notReadOnly == 0 }

// passedFlags are the flags of the command's open that the supervisor's
// own open keeps: they change what the descriptor does (non-blocking
// reads, a directory only), never what it may reach.
const passedFlags = oNonblock | oDirectory

// Join is the absolute path an open names: path itself when absolute,
// else path under base (the command's working directory or the
// directory its descriptor names). It refuses ("", false) a path with a
// ".." component (where the kernel would walk up through a link, the text
// would not), an empty path, and a relative path without an absolute
// base. "." components and repeated slashes are dropped.
func Join(base, path string) (string, bool) {
	if path == "" || strings.IndexByte(path, 0) >= 0 {
		return "", false
	}
	for _, part := range strings.Split(path, "/") {
		if part == ".." {
			return "", false
		}
	}
	if !filepath.IsAbs(path) {
		if !filepath.IsAbs(base) {
			return "", false
		}
		path = base + "/" + path
	}
	return filepath.Clean(path), true
}

// Under returns the root of roots that holds path (whole components only:
// /a/b holds /a/b/c, not /a/bc), or "".
func Under(roots []string, path string) string {
	for _, r := range roots {
		if path == r || strings.HasPrefix(path, r) && (strings.HasSuffix(r, "/") || path[len(r)] == '/') {
			return r
		}
	}
	return ""
}
