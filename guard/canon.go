package guard

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// maxLinks bounds symlink hops during resolution, as the kernel's ELOOP does.
const maxLinks = 40

// ErrBadPath is wrapped by every canonicalisation error caused by the path
// itself (empty, NUL byte, symlink loop) rather than by the file system.
var ErrBadPath = errors.New("bad path")

// Canonicalizer turns a requested path into the one absolute path the kernel
// would reach. It carries the home directory for `~` so that nothing reads
// the process environment behind the caller's back.
type Canonicalizer struct {
	Home string
}

// Canonical resolves path against cwd: `~` expansion, relative paths joined
// to cwd, symlinks resolved component by component, and `..` applied to the
// resolved parent the way the kernel does it (so /w/link/.. is the parent of
// the link's target, not /w). Components that do not exist yet are appended
// as written, which resolves a new file through its existing parent.
//
// With followLast false a symlink in the final component is not followed:
// that is what rm, mv and ln act on.
func (c Canonicalizer) Canonical(path, cwd string, followLast bool) (string, error) {
	abs, err := c.absolute(path, cwd)
	if err != nil {
		return "", err
	}
	return resolve(abs, followLast)
}

// resolve canonicalises an absolute path: the kernel answers for a file
// that exists, the component walk for anything else.
func resolve(abs string, followLast bool) (string, error) {
	if p, ok := resolveKernel(abs, followLast); ok {
		return p, nil
	}
	return resolveWalk(abs, followLast)
}

// absolute expands `~` and anchors a relative path at cwd, without cleaning.
func (c Canonicalizer) absolute(path, cwd string) (string, error) {
	switch {
	case path == "":
		return "", fmt.Errorf("%w: empty path", ErrBadPath)
	case strings.IndexByte(path, 0) >= 0:
		return "", fmt.Errorf("%w: path contains a NUL byte", ErrBadPath)
	case path == "~" || strings.HasPrefix(path, "~/"):
		if !filepath.IsAbs(c.Home) {
			return "", fmt.Errorf("%w: %q needs a home directory", ErrBadPath, path)
		}
		return c.Home + path[1:], nil
	case filepath.IsAbs(path):
		return path, nil
	case !filepath.IsAbs(cwd):
		return "", fmt.Errorf("%w: relative path %q needs an absolute working directory", ErrBadPath, path)
	}
	return cwd + "/" + path, nil
}

// resolveWalk walks the absolute path one component at a time. Components under
// a missing one cannot exist, so they are appended without a look-up; a later
// ".." climbs back out of them and resolution resumes on real directories.
func resolveWalk(abs string, followLast bool) (string, error) {
	todo := splitComponents(abs)
	done, virtual, links := "/", 0, 0
	for len(todo) > 0 {
		name := todo[0]
		todo = todo[1:]
		switch {
		case name == ".":
			continue
		case name == "..":
			done = filepath.Dir(done)
			virtual = max(virtual-1, 0)
			continue
		}
		next := filepath.Join(done, name)
		if virtual > 0 || (len(todo) == 0 && !followLast) {
			done, virtual = next, virtual+boolInt(virtual > 0)
			continue
		}
		fi, err := os.Lstat(next)
		switch {
		case err != nil && missing(err):
			done, virtual = next, 1
			continue
		case err != nil:
			return "", fmt.Errorf("resolve %s: %w", next, err)
		case fi.Mode()&fs.ModeSymlink == 0:
			done = next
			continue
		}
		if links++; links > maxLinks {
			return "", fmt.Errorf("%w: too many levels of symbolic links at %s", ErrBadPath, next)
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", fmt.Errorf("resolve %s: %w", next, err)
		}
		if filepath.IsAbs(target) {
			done, virtual = "/", 0
		}
		todo = append(splitComponents(target), todo...)
	}
	return done, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// missing reports whether err means the path (or a parent that is not a
// directory) does not exist, so the rest can only be created, not followed.
func missing(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

func splitComponents(p string) []string {
	parts := strings.Split(p, "/")
	out := parts[:0]
	for _, s := range parts {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}
