package afterrun

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"pathgrant/guard/protected"
)

// gitDir neutralises, in the git directory g, what was made or changed
// during the command and would make git run code or read its
// configuration from elsewhere. Linked worktrees' and submodules' git
// directories below it are checked the same way. fresh says git reaches
// g through a pointer made during the command (a .git file or link, a
// commondir): then every member counts as the command's, however old,
// since a file laid down by an earlier command as a plain file becomes
// git's configuration or hook only now, without its change time moving.
func (v *verifier) gitDir(g string, fresh bool) {
	if c, err := filepath.EvalSymlinks(g); err == nil {
		g = c
	}
	if !v.inArea(g) { // reached through a link: the person's, left alone
		return
	}
	if v.seen[g] && (!fresh || v.fresh[g]) {
		return
	}
	v.seen[g] = true
	if fresh {
		v.fresh[g] = true
	}
	if err := v.access(g); err != nil { // search on g, for what follows
		v.r.fail(g, "could not be checked: "+err.Error())
		return
	}
	v.hooks(filepath.Join(g, "hooks"), fresh)
	if d := v.hooksPathDir(g); d != "" && v.inside(d) {
		v.hooks(d, fresh)
	}
	for _, name := range []string{"config", "config.worktree"} {
		v.config(filepath.Join(g, name), fresh)
	}
	v.commondir(g, fresh)
	if p := filepath.Join(g, "info", "attributes"); exists(p) && (fresh || v.changed(p)) {
		v.quarantine(p, "git attributes made during the command (they select filter and diff drivers): moved aside")
	}
	for _, todo := range []string{"rebase-merge/git-rebase-todo", "sequencer/todo"} {
		v.todo(filepath.Join(g, todo), fresh)
	}
	v.below(filepath.Join(g, "worktrees"), 1, fresh)
	v.below(filepath.Join(g, "modules"), 8, fresh)
}

// hooksPathDir is the folder g's core.hooksPath names, where git runs
// hooks from instead of hooks/.
func (v *verifier) hooksPathDir(g string) string {
	data, err := readSmall(filepath.Join(g, "config"))
	if err != nil {
		return ""
	}
	worktree := ""
	if protected.IsGitName(filepath.Base(g)) {
		worktree = filepath.Dir(g)
	}
	return protected.HooksDir(data, worktree)
}

// hooks makes inert every hook made or changed during the command (a
// file not ending in .sample: what git runs), or the hooks folder itself
// when it is a link. Every hook counts as the command's when all is set
// or the folder itself changed (a folder of old files moved into place
// keeps their change times). A hooks folder that cannot be listed fails
// the check.
func (v *verifier) hooks(dir string, all bool) {
	fi, err := os.Lstat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return
	case err != nil:
		v.r.fail(dir, "could not be checked: "+err.Error())
		return
	case fi.Mode()&os.ModeSymlink != 0:
		if v.changed(dir) {
			v.quarantine(dir, "a hooks link made during the command: moved aside")
		}
		return
	case !fi.IsDir():
		if v.changed(dir) {
			v.quarantine(dir, "a hooks entry made during the command that is not a folder: moved aside")
		}
		return
	}
	all = all || v.changed(dir)
	err = v.each(dir, func(e fs.DirEntry) {
		p := filepath.Join(dir, e.Name())
		if strings.HasSuffix(e.Name(), ".sample") || strings.Contains(e.Name(), Quarantined) || !all && !v.changed(p) {
			return
		}
		v.quarantine(p, "a git hook made during the command: made inert")
	})
	if err != nil {
		v.r.fail(dir, "could not be checked: "+err.Error())
	}
}

// config moves a configuration file made or changed during the command
// aside when it holds anything git init or clone would not write, and
// writes in its place the part that is safe, so the repository still
// works. fresh: it counts as made during the command whatever its age.
func (v *verifier) config(p string, fresh bool) {
	fi, err := os.Lstat(p)
	if err != nil || !fresh && !v.changed(p) {
		return
	}
	var safe string
	clean := false
	if fi.Mode().IsRegular() {
		if data, err := readSmall(p); err == nil {
			safe, clean = screenConfig(data, v.worktreeInside(filepath.Dir(p)))
		}
	}
	if clean {
		return
	}
	if !v.quarantine(p, "git configuration made during the command names keys git init does not write: moved aside, its safe keys kept") {
		return
	}
	if err := writeNew(p, safe); err != nil {
		v.r.add(p, "writing the safe configuration back failed (the repository has no config now): "+err.Error())
	}
}

// commondir checks the folder g's commondir names, whenever it names one
// in the write areas, as a git directory whatever it holds (git reads
// config and hooks from a common dir without HEAD; git worktree add
// writes one in <common>/worktrees/<name>, pointing at <common>): the
// pointer may be older than a plant in its target. A commondir made or
// changed during the command (or reached fresh) that leads out of the
// write areas is moved aside. A target without HEAD reached through a
// new pointer is checked fresh: no repository search found it before
// (a folder without HEAD is no repository of its own), so nothing in it
// was ever checked or held as git's.
func (v *verifier) commondir(g string, fresh bool) {
	p := filepath.Join(g, "commondir")
	if !exists(p) {
		return
	}
	data, err := readSmall(p)
	target := resolve(g, gitPath(data))
	if fi, serr := os.Stat(target); err == nil && serr == nil && gitPath(data) != "" && fi.IsDir() && v.inArea(target) {
		v.gitDir(target, (fresh || v.changed(p)) && !exists(filepath.Join(target, "HEAD")))
		return
	}
	if !fresh && !v.changed(p) {
		return
	}
	v.quarantine(p, "a commondir made during the command points git out of the workspace: moved aside")
}

// worktreeInside says whether a core.worktree value in the git
// directory g's configuration names a folder in the write areas: one
// outside them makes the person's checkout, stash or reset in that
// repository write there.
func (v *verifier) worktreeInside(g string) func(string) bool {
	return func(w string) bool {
		if w == "" {
			return false
		}
		if !filepath.IsAbs(w) {
			w = filepath.Join(g, w)
		}
		return v.inside(filepath.Clean(w))
	}
}

// todo moves aside an interrupted rebase's or cherry-pick's todo list made
// during the command when it has exec lines (run when the person
// continues).
func (v *verifier) todo(p string, fresh bool) {
	if !exists(p) || !fresh && !v.changed(p) || !v.inside(p) { // a linked rebase-merge/ is the person's
		return
	}
	data, err := readSmall(p)
	if err == nil && !hasExec(data) {
		return
	}
	v.quarantine(p, "a todo list made during the command runs commands when continued: moved aside")
}

func hasExec(data string) bool {
	for line := range strings.SplitSeq(data, "\n") {
		f := strings.Fields(line)
		if len(f) > 0 && (f[0] == "exec" || f[0] == "x") {
			return true
		}
	}
	return false
}

// below checks the git directories in dir (linked worktrees, submodules,
// whose names may have up to depth components). A folder in them that
// is not a git directory within the depth is walked like any other, so
// nothing below is left unchecked. fresh: as gitDir's.
func (v *verifier) below(dir string, depth int, fresh bool) {
	fi, err := os.Lstat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return
	case err == nil && fi.Mode()&fs.ModeSymlink != 0: // never followed: it may lead anywhere
		if fresh || v.changed(dir) {
			v.quarantine(dir, "a link made during the command where git keeps linked worktrees or submodules: moved aside")
		}
		return
	}
	err = v.each(dir, func(e fs.DirEntry) {
		p := filepath.Join(dir, e.Name())
		if !e.IsDir() {
			return
		}
		err := v.access(p)
		switch {
		case err != nil:
			v.r.fail(p, "could not be checked: "+err.Error())
		case exists(filepath.Join(p, "HEAD")): // a git directory (HEAD is what git looks for first)
			v.gitDir(p, fresh)
		case depth > 1:
			v.below(p, depth-1, fresh)
		default:
			v.walk(p)
		}
	})
	if err != nil {
		v.r.fail(dir, "could not be checked: "+err.Error())
	}
}

// writeNew writes a file that must not exist yet (O_EXCL: a link or file
// put there in between is not written through).
func writeNew(p, data string) error {
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
