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

// pathMax is the kernel's PATH_MAX: a longer path (its NUL included) is
// ENAMETOOLONG to every system call, so it names nothing a command could
// reach, and refusing it keeps a caller's megabyte path out of memory.
const pathMax = 4096

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
	return resolver{cwd: cwd}.resolve(abs, followLast)
}

// resolve canonicalises an absolute path with no working directory known
// (so /proc/self/cwd cannot be resolved) and no links made earlier.
func resolve(abs string, followLast bool) (string, error) {
	return resolver{}.resolve(abs, followLast)
}

// resolver canonicalises paths for one command at one point of a command
// line: cwd is the command's own working directory (what /proc/self/cwd
// means to it, never the guard's), and ov the links and moves made by
// earlier commands of the same line, which the file system does not show yet.
type resolver struct {
	cwd string
	ov  *overlay
}

// resolve canonicalises an absolute path: the kernel answers for a file
// that exists when no earlier command of the line changed anything, the
// component walk for anything else.
func (r resolver) resolve(abs string, followLast bool) (string, error) {
	if len(abs) >= pathMax {
		return "", fmt.Errorf("%w: a path of %d bytes is longer than the kernel's PATH_MAX (%d)", ErrBadPath, len(abs), pathMax)
	}
	if r.ov.empty() {
		if p, ok := resolveKernel(abs, followLast); ok {
			return p, nil
		}
	}
	return r.walk(abs, followLast)
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

// walk resolves the absolute path one component at a time. Components
// under a missing one cannot exist on disk, so they are appended without a
// look-up (the overlay may still hold a link there); a later ".." climbs
// back out of them and resolution resumes on real directories. /proc/self
// and /proc/thread-self are the command's, not the guard's: cwd and root
// are followed for the command, any other process entry is refused.
func (r resolver) walk(abs string, followLast bool) (string, error) {
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
		case done == "/proc" && virtual == 0 && procEntry(name):
			var err error
			if done, todo, err = r.proc(name, todo); err != nil {
				return "", err
			}
			continue
		}
		next := filepath.Join(done, name)
		if len(todo) == 0 && !followLast {
			done, virtual = next, virtual+boolInt(virtual > 0)
			continue
		}
		target, isLink, exists, err := r.lookup(next, virtual > 0)
		switch {
		case err != nil:
			return "", err
		case !isLink && !exists:
			done, virtual = next, virtual+1
			continue
		case !isLink:
			done = next
			continue
		}
		if links++; links > maxLinks {
			return "", fmt.Errorf("%w: too many levels of symbolic links at %s", ErrBadPath, next)
		}
		if filepath.IsAbs(target) {
			done, virtual = "/", 0
		}
		todo = append(splitComponents(target), todo...)
	}
	return done, nil
}

// lookup says what is at the canonical path p: a link (and its text), or
// something else that exists or not. The overlay answers first; under a
// missing component the disk is not asked.
func (r resolver) lookup(p string, underMissing bool) (target string, isLink, exists bool, err error) {
	if e, ok := r.ov.lookup(p); ok {
		return e.target, e.kind == entLink, e.kind == entLink || e.kind == entPlain, nil
	}
	if underMissing {
		return "", false, false, nil
	}
	fi, err := os.Lstat(p)
	switch {
	case err != nil && missing(err):
		return "", false, false, nil
	case err != nil:
		return "", false, false, fmt.Errorf("resolve %s: %w", p, err)
	case fi.Mode()&fs.ModeSymlink == 0:
		return "", false, true, nil
	}
	target, err = os.Readlink(p)
	if err != nil {
		return "", false, false, fmt.Errorf("resolve %s: %w", p, err)
	}
	return target, true, true, nil
}

// procEntry reports whether name under /proc is a process directory.
func procEntry(name string) bool {
	return name == "self" || name == "thread-self" || isDigits(name)
}

// proc resolves /proc/self/cwd and /proc/self/root for the command. Other
// entries (fd, environ, mem, another process's cwd) are refused: what they
// lead to depends on a process the guard cannot see.
func (r resolver) proc(name string, todo []string) (string, []string, error) {
	if isDigits(name) || len(todo) == 0 {
		return "", nil, fmt.Errorf("/proc/%s names a process the guard cannot see", name)
	}
	switch todo[0] {
	case "cwd":
		if r.cwd == "" {
			return "", nil, fmt.Errorf("/proc/%s/cwd: the working directory is unknown", name)
		}
		return r.cwd, todo[1:], nil
	case "root":
		return "/", todo[1:], nil
	}
	return "", nil, fmt.Errorf("/proc/%s/%s is the command's own state, not a file the guard can judge", name, todo[0])
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
