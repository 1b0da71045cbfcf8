package guard

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"pathgrant/guard/protected"
)

// plants reports the member of the protected set (package protected) a
// write, move or delete of a.Path would change: a file a person's tools
// run without being asked (git's config and hooks in any repository at
// any depth, the agents' project files, editor task folders, shell
// start-up files). It is judged on the canonical path, so a link into a
// member is caught where it leads, and on the path as requested, so a
// link named like a member is caught too. Reads are never refused by it.
func (p *Compiled) plants(a *Access) (protected.Member, bool) {
	if a.Op == OpRead {
		return protected.Member{}, false
	}
	open := func(m protected.Member) bool { return p.open[strings.ToLower(m.Key)] }
	for _, path := range []string{a.Path, a.Requested} {
		if path == "" || path[0] != '/' {
			continue
		}
		if m, ok := protected.Match(path, exists, open); ok {
			return m, true
		}
	}
	if hooks, _ := protected.Named(".git/hooks"); !open(hooks) && a.Path != "" && a.Path[0] == '/' {
		if d := hooksDirOf(a.Path); d != "" && Within(d, a.Path) {
			hooks.Why = "the folder core.hooksPath names (" + d + "): " + hooks.Why
			return hooks, true
		}
	}
	return protected.Member{}, false
}

// hooksDirOf is the core.hooksPath folder of the repository path lies in
// (the nearest folder above it holding .git), or "".
func hooksDirOf(path string) string {
	for dir := range Ancestors(filepath.Dir(path)) {
		g := filepath.Join(dir, ".git")
		fi, err := os.Lstat(g)
		if err != nil {
			continue
		}
		if !fi.IsDir() {
			g = gitdirTarget(g, dir)
		}
		if c := readConfig(filepath.Join(g, "commondir")); c != "" {
			if rel := strings.TrimSpace(c); filepath.IsAbs(rel) {
				g = rel
			} else {
				g = filepath.Join(g, rel)
			}
		}
		return protected.HooksDir(readConfig(filepath.Join(g, "config")), dir)
	}
	return ""
}

// gitdirTarget is where a .git file (gitdir: X) in dir points.
func gitdirTarget(file, dir string) string {
	t, ok := strings.CutPrefix(strings.TrimSpace(readConfig(file)), "gitdir:")
	if t = strings.TrimSpace(t); !ok || t == "" {
		return ""
	}
	if !filepath.IsAbs(t) {
		t = filepath.Join(dir, t)
	}
	return t
}

// readConfig reads a small git file, "" when it is missing or large.
func readConfig(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	n, _ := io.ReadFull(f, buf)
	if n == len(buf) {
		return ""
	}
	return string(buf[:n])
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// compileOpen checks the device policy's allow_protected keys: each must
// name a member, so a typo cannot look like an opening that is not.
func compileOpen(keys []string) (map[string]bool, error) {
	open := map[string]bool{}
	for _, k := range keys {
		m, ok := protected.Named(k)
		if !ok {
			return nil, fmt.Errorf("allow_protected: %q is not a protected member (want one of %s)", k, strings.Join(ProtectedKeys(), ", "))
		}
		open[strings.ToLower(m.Key)] = true
	}
	return open, nil
}

// ProtectedKeys are the names allow_protected accepts.
func ProtectedKeys() []string {
	var out []string
	for _, m := range protected.Members() {
		out = append(out, m.Key)
	}
	return slices.Concat(out, []string{protected.GitEntry.Key})
}

// WorkspaceProtected are the members of the protected set at the top of
// a workspace, relative to it (".vscode", ".git/config", …), that the
// confined view pins when present and, for those marked Hold, holds the
// place of when absent; less those open names (allow_protected). The
// daemon joins them to each workspace root. The view pins every other
// member it finds present itself, and the guard matches the whole set at
// any depth. .git/worktrees and .git/modules are not listed: read-only, they
// would stop worktree add and submodule work; the view protects the git
// directories inside them instead.
func WorkspaceProtected(open []string) []string {
	var out []string
	for _, m := range protected.Members() {
		if m.Name == "worktrees" || m.Name == "modules" || (m.Kind == protected.Anywhere && !m.Hold) || slices.ContainsFunc(open, func(k string) bool { return strings.EqualFold(k, m.Key) }) {
			continue
		}
		out = append(out, m.Key)
	}
	return out
}
