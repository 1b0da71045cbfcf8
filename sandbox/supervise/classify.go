package supervise

import (
	"path/filepath"
	"strings"

	"pathgrant/wire"
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

// readOnly reports whether an open with flags only reads.
func readOnly(flags uint64) bool { return flags&notReadOnly == 0 }

// passedFlags are the flags of the command's open that the supervisor's
// own open keeps: they change what the descriptor does (non-blocking
// reads, a directory only), never what it may reach.
const passedFlags = oNonblock | oDirectory

// join is the absolute path an open names: path itself when absolute,
// else path under base (the command's working directory or the
// directory its descriptor names). It refuses ("", false) a path with a
// ".." component (where the kernel would walk up through a link, the text
// would not), an empty path, and a relative path without an absolute
// base, or a base with a ".." of its own (the kernel's names of a
// working directory never have one; cleaning it away would name a
// folder the byte-wise candidate test did not see). "." components and
// repeated slashes are dropped.
func join(base, path string) (string, bool) {
	if path == "" || strings.IndexByte(path, 0) >= 0 || hasDotDot(path) || !filepath.IsAbs(path) && hasDotDot(base) {
		return "", false
	}
	if !filepath.IsAbs(path) {
		if !filepath.IsAbs(base) {
			return "", false
		}
		path = base + "/" + path
	}
	return filepath.Clean(path), true
}

// hasDotDot reports whether path has a ".." component.
func hasDotDot(path string) bool {
	for i := 0; i+1 < len(path); i++ {
		if path[i] == '.' && path[i+1] == '.' && (i == 0 || path[i-1] == '/') && (i+2 == len(path) || path[i+2] == '/') {
			return true
		}
	}
	return false
}

// Covered reports whether a read grant of granted covers path: a file
// grant that one path, a folder grant everything under it.
func Covered(granted []wire.Scope, path string) bool {
	for _, g := range granted {
		if g.Op == wire.OpRead && (g.Path == path || g.Kind == wire.KindFolder && under([]string{g.Path}, path) != "") {
			return true
		}
	}
	return false
}

// candidate reports, without allocating, whether the path an open names
// (base and path as join takes them) may lie under one of roots: a
// byte-wise test on the text as given, before join builds and cleans it.
// It may say yes for a path that is not (doubled slashes, "."), never no
// for one that is.
func candidate(roots []string, base, path []byte) bool {
	for _, r := range roots {
		if mayHold(r, base, path) {
			return true
		}
	}
	return false
}

// mayHold compares root with base+"/"+path (or path alone when it is
// absolute), byte by byte, as far as root goes; a "//" or "/./" in the
// text makes it say yes.
func mayHold(root string, base, path []byte) bool {
	text := func(i int) (byte, bool) {
		if len(path) > 0 && path[0] == '/' {
			if i < len(path) {
				return path[i], true
			}
			return 0, false
		}
		switch {
		case i < len(base):
			return base[i], true
		case i == len(base):
			return '/', true
		case i-len(base)-1 < len(path):
			return path[i-len(base)-1], true
		}
		return 0, false
	}
	for i := 0; i < len(root); i++ {
		c, ok := text(i)
		if !ok {
			return false
		}
		if c != root[i] {
			return c == '/' && i > 0 && root[i-1] == '/' || c == '.'
		}
	}
	c, ok := text(len(root))
	return !ok || c == '/' || strings.HasSuffix(root, "/")
}

// under returns the root of roots that holds path (whole components only:
// /a/b holds /a/b/c, not /a/bc), or "".
func under(roots []string, path string) string {
	for _, r := range roots {
		if path == r || strings.HasPrefix(path, r) && (strings.HasSuffix(r, "/") || path[len(r)] == '/') {
			return r
		}
	}
	return ""
}
