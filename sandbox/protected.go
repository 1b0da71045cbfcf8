package sandbox

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"pathgrant/guard/protected"
)

// agentHookFiles are the agents' hook settings a workspace holds, kept
// read-only whatever the device policy opens (they guard the session).
var agentHookFiles = []string{".claude/settings.json", ".claude/settings.local.json", ".gemini/settings.json", ".cursor/hooks.json"}

// Bounds of the search for repositories at wrap time: a repository
// deeper than maxRepoDepth folders below a write area, or past
// maxRepoDirs listed folders, is not found here (afterrun.Check walks
// the whole area after the command). skipRepoDirs are folders that hold
// dependencies and build output, never the person's repositories.
const (
	maxRepoDepth = 6
	maxRepoDirs  = 4096
)

var skipRepoDirs = map[string]bool{"node_modules": true, "target": true, ".venv": true, "venv": true,
	"__pycache__": true, ".cache": true, "dist": true, "build": true, ".tox": true, ".gradle": true}

// ownProtected are the members of the protected set (package
// guard/protected) in the workspace area that the view keeps read-only
// whatever the policy says, less those open names:
//
//   - the Anywhere members at the top of the area, in whatever case they
//     are spelt there, or in their own spelling when absent and marked
//     Hold (the view holds their place);
//   - the agents' hook settings;
//   - in every repository found (the area's own, nested ones within the
//     bounds above, .git files' gitdir: targets inside the area, linked
//     worktrees' and submodules' git directories), the git members that
//     exist, and the folder core.hooksPath names when it exists in the
//     area; of the absent ones, those whose place can be held without
//     changing what git does (heldAbsent). The others (commondir, a
//     config.worktree git reads, rebase and sequencer state) are left to
//     the daemon's check after the command (sandbox/afterrun): holding
//     their place would break git.
func ownProtected(area string, fsys ViewFS, open []string) []string {
	opened := func(m protected.Member) bool {
		return slices.ContainsFunc(open, func(k string) bool { return strings.EqualFold(k, m.Key) })
	}
	top, _ := fsys.ReadDir(area)
	var out []string
	for _, m := range protected.Members() {
		if m.Kind != protected.Anywhere || opened(m) {
			continue
		}
		switch i := slices.IndexFunc(top, func(e Entry) bool { return strings.EqualFold(e.Name, m.Name) }); {
		case i >= 0:
			out = append(out, filepath.Join(area, top[i].Name))
		case m.Hold:
			out = append(out, filepath.Join(area, m.Name))
		}
	}
	for _, rel := range agentHookFiles {
		out = append(out, filepath.Join(area, rel))
	}
	rf := repoFinder{fs: fsys, area: area, seen: map[string]bool{}}
	rf.find(area, top, 0)
	hooks, _ := protected.Named(".git/hooks")
	for _, g := range rf.gitDirs {
		out = append(out, gitMembers(fsys, g, opened)...)
		if d := hooksDir(g); !opened(hooks) && d != "" && strings.HasPrefix(d, area+"/") {
			if _, err := fsys.Type(d); err == nil {
				out = append(out, d)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// gitMembers are the members of the git directory g that exist, and the
// absent ones whose place the view holds (heldAbsent). The folders of
// other git directories (worktrees, modules) are not made read-only
// themselves, so worktree add and submodule work; the git directories in
// them are found as repositories of their own.
func gitMembers(fsys ViewFS, g string, opened func(protected.Member) bool) []string {
	var out []string
	for _, m := range protected.Members() {
		if m.Kind != protected.GitMember || opened(m) || m.Name == "worktrees" || m.Name == "modules" {
			continue
		}
		_, err := fsys.Type(filepath.Join(g, m.Name))
		if err == nil || errors.Is(err, fs.ErrNotExist) && heldAbsent(g, m.Name) {
			out = append(out, filepath.Join(g, m.Name))
		}
	}
	return out
}

// heldAbsent reports whether the view may hold the place of the absent
// member name of git directory g with an empty read-only folder, without
// changing what git does: hooks/ and info/ (git looks files up in them
// and finds none), and config.worktree where g's own configuration does
// not turn extensions.worktreeConfig on (git then never reads it; the
// configuration is held read-only, so the command cannot turn it on).
// Not commondir (git dies reading a folder there), nor a linked
// worktree's config.worktree (the switch is in the common directory's
// configuration), nor rebase or sequencer state (git takes an empty
// folder for an interrupted rebase).
func heldAbsent(g, name string) bool {
	switch name {
	case "hooks", "info":
		return true
	case "config.worktree":
		if _, err := os.Lstat(filepath.Join(g, "commondir")); err == nil || !errors.Is(err, fs.ErrNotExist) {
			return false
		}
		data, err := os.ReadFile(filepath.Join(g, "config"))
		return err == nil && len(data) < 256<<10 && !worktreeConfigOn(string(data))
	}
	return false
}

// worktreeConfigOn reports whether a git configuration may turn
// extensions.worktreeConfig on: any mention of the key counts, and so
// does an include (which could), so that a doubt never holds the place.
func worktreeConfigOn(config string) bool {
	c := strings.ToLower(config)
	return strings.Contains(c, "worktreeconfig") || strings.Contains(c, "include")
}

// hooksDir is the folder the git directory g's core.hooksPath names
// (husky's .husky/_, a .githooks folder), where git runs hooks from.
func hooksDir(g string) string {
	data, err := os.ReadFile(filepath.Join(g, "config"))
	if err != nil || len(data) > 256<<10 {
		return ""
	}
	worktree := ""
	if protected.IsGitName(filepath.Base(g)) {
		worktree = filepath.Dir(g)
	}
	return protected.HooksDir(string(data), worktree)
}

// repoFinder walks a write area, within the bounds, for git directories.
type repoFinder struct {
	fs      ViewFS
	area    string
	dirs    int
	seen    map[string]bool
	gitDirs []string
}

func (rf *repoFinder) find(dir string, es []Entry, depth int) {
	if byContent(es) {
		rf.gitDir(dir)
		return
	}
	for _, e := range es {
		p := filepath.Join(dir, e.Name)
		switch {
		case protected.IsGitName(e.Name) && e.Type == TypeDir:
			rf.gitDir(p)
		case protected.IsGitName(e.Name):
			if t := rf.pointer(p); t != "" {
				rf.gitDir(t)
			}
		case e.Type != TypeDir || skipRepoDirs[e.Name] || depth >= maxRepoDepth || rf.dirs >= maxRepoDirs:
		default:
			rf.dirs++
			sub, err := rf.fs.ReadDir(p)
			if err == nil {
				rf.find(p, sub, depth+1)
			}
		}
	}
}

// gitDir records g and the git directories it holds (linked worktrees,
// submodules, nested submodules).
func (rf *repoFinder) gitDir(g string) {
	if rf.seen[g] {
		return
	}
	rf.seen[g] = true
	rf.gitDirs = append(rf.gitDirs, g)
	for _, holder := range []string{"worktrees", "modules"} {
		rf.below(filepath.Join(g, holder), 4)
	}
}

func (rf *repoFinder) below(dir string, depth int) {
	es, err := rf.fs.ReadDir(dir)
	if err != nil || depth == 0 {
		return
	}
	for _, e := range es {
		if e.Type != TypeDir {
			continue
		}
		p := filepath.Join(dir, e.Name)
		if sub, err := rf.fs.ReadDir(p); err == nil && byContent(sub) {
			rf.gitDir(p)
		} else {
			rf.below(p, depth-1)
		}
	}
}

// pointer is the git directory a .git file (gitdir: X) or link names,
// when it lies inside the area (a target outside it is not writable
// here), else "".
func (rf *repoFinder) pointer(p string) string {
	var target string
	if t, err := rf.fs.Canonical(p); err == nil && t != p {
		target = t
	} else if data, err := os.ReadFile(p); err == nil && len(data) < 4096 {
		rest, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir:")
		if !ok {
			return ""
		}
		target = strings.TrimSpace(rest)
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(p), target)
		}
		if c, err := rf.fs.Canonical(target); err == nil {
			target = c
		}
	}
	if target == "" || !strings.HasPrefix(target, rf.area+"/") {
		return ""
	}
	return filepath.Clean(target)
}

// byContent: a folder holding HEAD and objects (or commondir) is a git
// directory to git, whatever its name.
func byContent(es []Entry) bool {
	has := func(n string) bool { return slices.ContainsFunc(es, func(e Entry) bool { return e.Name == n }) }
	return has("HEAD") && (has("objects") || has("commondir"))
}
