package sandbox

import (
	"os"
	"path/filepath"
	"slices"

	"pathgrant/guard"
	"pathgrant/sandbox/launch"
)

// viewSystem are the places every confined command sees besides the
// system trees: configuration, and its own /proc and /dev. (Its /tmp is
// private and empty: the real /tmp is not readable.)
var viewSystem = []string{"/etc", "/proc", "/dev"}

// Reads reports whether a confined command built from in may read path
// (absolute, as the command named it): it lies in a system folder, a
// workspace root, a read-only root, a read grant (a file grant: that
// path only), a device-policy toolchain, cache or read-only file, or the
// session's tmp dir (a path in the private /tmp only shadows
// the real one, which it cannot read). It answers the question `pathgrant exec` asks of a
// path a failed command names: a path it may read failed for a reason of
// its own (missing, say), while one it may not is worth telling the agent
// about. It is lexical; the daemon canonicalises the path when asked.
func (in Input) Reads(path string) bool {
	if !filepath.IsAbs(path) {
		return false
	}
	path = filepath.Clean(path)
	within := func(roots []string) bool {
		return slices.ContainsFunc(roots, func(r string) bool { return r != "" && guard.Within(filepath.Clean(r), path) })
	}
	p, d := in.Policy, in.Device
	if within(systemTrees) || within(viewSystem) || within(p.Workspace) || within(p.ReadOnly) ||
		within(d.Toolchains) || within(d.Caches) || within(d.ReadOnlyFiles) || within([]string{in.TmpDir}) {
		return true
	}
	return slices.ContainsFunc(slices.Concat(p.Grants, in.Used), func(g guard.Scope) bool {
		if g.Op != guard.OpRead {
			return false
		}
		if g.Kind == guard.KindFolder {
			return guard.Within(filepath.Clean(g.Path), path)
		}
		return filepath.Clean(g.Path) == path
	})
}

// Outside keeps the paths a confined command built from in may not read:
// lexically outside what it allows (Reads), or a link that leads out of
// it; at most launch.MaxReported. A path in /tmp counts only if it exists
// outside: the view's /tmp is private, and a command's own temporary file
// that went missing is not a refusal.
func (in Input) Outside(paths []string) []string {
	var out []string
	for _, p := range paths {
		outside := !in.Reads(p)
		if _, err := os.Lstat(p); outside && err != nil && guard.Within("/tmp", p) {
			continue
		}
		if !outside {
			if c, err := filepath.EvalSymlinks(p); err == nil && c != p {
				outside = !in.Reads(c)
			}
		}
		if outside && len(out) < launch.MaxReported {
			out = append(out, p)
		}
	}
	return out
}
