package afterrun

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"pathgrant/guard/protected"
)

// clockSlack is how far before the clock's reading a change still counts
// as made during the command when Begin cannot read the file system's own
// clock: file times come from the kernel's coarse clock, which lags the
// precise one by up to a tick, and some file systems keep whole seconds
// (two on FAT). Erring early only ever checks more.
const clockSlack = 2 * time.Second

// Plan is what the check after one command needs, recorded by the daemon
// when it prepares the command (Begin) and kept until the check ran: in
// the daemon's store, so that a restart loses none.
type Plan struct {
	// Areas are the write areas (the session's workspace roots).
	Areas []string `json:"areas"`
	// Since is when the command started, as the areas' file systems tell
	// time: what changed since counts as the command's.
	Since time.Time `json:"since"`
	// Pinned are the protected members at the top of an area when the
	// command started that the view held read-only: a change in them
	// since is not the command's (the agent's own settings write,
	// outside) and they are left alone. Never a link: the view cannot
	// hold a link in place, so one is checked like any other name.
	Pinned []string `json:"pinned,omitempty"`
	// Open are the protected members the device policy opens.
	Open []string `json:"open,omitempty"`
	// Placeholders are the empty places the view held for absent
	// protected members, removed before the check.
	Placeholders []string `json:"placeholders,omitempty"`
	// Held are placeholders the daemon keeps for another command's view
	// that may mount them: left alone while each is still an empty
	// folder, checked like any other name once it is not.
	Held []string `json:"held,omitempty"`
}

// Begin plans the check of a command about to start in writeAreas. It
// reads the time from the file systems of the areas themselves: it makes
// and removes an empty file in each and takes the earliest change time,
// so a change the command makes is never older than it, whatever the file
// system's time granularity or a network file server's clock. Where no
// file can be made, the clock less clockSlack stands in. held says the
// view holds the protected members at the top of each area read-only (a
// mount view does; Landlock alone cannot): only then are they pinned.
func Begin(writeAreas []string, held bool) Plan {
	p := Plan{Areas: cleanAll(writeAreas), Since: time.Now().Add(-clockSlack)}
	read := false
	for _, a := range p.Areas {
		if held {
			p.Pinned = append(p.Pinned, pinnedIn(a)...)
		}
		f, err := os.CreateTemp(a, ".pathgrant-start-*")
		if err != nil {
			continue
		}
		fi, err := f.Stat()
		f.Close()
		os.Remove(f.Name())
		if err != nil {
			continue
		}
		if t := changeTime(fi); !read || t.Before(p.Since) {
			p.Since, read = t, true
		}
	}
	return p
}

// pinnedIn are the protected members at the top of area, links left out.
func pinnedIn(area string) []string {
	es, _ := os.ReadDir(area)
	var out []string
	for _, e := range es {
		if _, ok := protected.AnywhereNamed(e.Name()); ok && e.Type()&fs.ModeSymlink == 0 {
			out = append(out, filepath.Join(area, e.Name()))
		}
	}
	return out
}

// Check removes the view's placeholders, then walks each write area
// whole and neutralises what was made or changed since the plan's start
// that would make the person's tools run code: in every git directory
// found (.git folders, .git files' gitdir: targets, bare repositories,
// linked worktrees, submodules, every commondir's target) hooks,
// configuration outside what git init and clone write, commondir
// pointers, attributes and todo lists with exec lines; .git pointers
// leading out of the write areas; and members of the protected set
// (package guard/protected) other than the open ones. Each is one
// Finding. The error says what could not be checked or neutralised: the
// check failed, and the workspace may hold a plant.
func Check(p Plan) (Report, error) {
	v := newVerifier(p.Areas, p.Since, p.Open)
	v.pinned, v.held = map[string]bool{}, map[string]bool{}
	for _, pin := range p.Pinned {
		v.pinned[pin] = true
	}
	for _, h := range p.Held {
		v.held[h] = true
	}
	for _, l := range RemovePlaceholders(p.Placeholders) {
		v.r.add(l.Path, l.Action)
	}
	return v.run()
}

func newVerifier(writeAreas []string, since time.Time, open []string) *verifier {
	areas := make([]string, 0, len(writeAreas))
	for _, a := range writeAreas {
		areas = append(areas, filepath.Clean(a)) // as Begin resolved them: never again (run)
	}
	v := &verifier{since: since, areas: areas, seen: map[string]bool{}, fresh: map[string]bool{}, uid: os.Getuid()}
	for _, k := range open {
		if m, ok := protected.Named(k); ok {
			v.open = append(v.open, m.Key)
		}
	}
	return v
}

// run walks each area. An area is the path Begin resolved, links and
// all: one that now leads elsewhere (the command, or another session's
// command over a folder holding it, put a link in its place or on its
// way) is not walked, since the walk would move and re-mode the files of
// wherever it leads, and the check fails.
func (v *verifier) run() (Report, error) {
	for _, a := range v.areas {
		if _, err := os.Lstat(a); err != nil {
			v.r.fail(a, "the workspace could not be checked: "+err.Error())
			continue
		}
		if real, err := filepath.EvalSymlinks(a); err != nil || real != a {
			v.r.fail(a, fmt.Sprintf("the workspace was replaced during the command (it now leads to %s, %v): not checked, nothing there moved", real, err))
			continue
		}
		v.walk(a)
	}
	if len(v.r.Failures) > 0 {
		errs := make([]error, len(v.r.Failures))
		for i, f := range v.r.Failures {
			errs[i] = errors.New(f.Path + ": " + f.Action)
		}
		return v.r, fmt.Errorf("the check after the command did not finish: %w", errors.Join(errs...))
	}
	return v.r, nil
}

type verifier struct {
	since time.Time
	areas []string
	open  []string
	seen  map[string]bool // git directories checked
	fresh map[string]bool // of them, those checked as reached fresh (gitDir)
	// pinned are members the view kept read-only (Plan.Pinned).
	pinned map[string]bool
	// held are placeholders kept for another command's view (Plan.Held).
	held map[string]bool
	uid  int
	r    Report
}

// walk lists dir (restoring the access a listing needs) and checks each
// entry, going below every folder: no bound on entries or depth, since a
// bound is one an agent can pad a workspace past.
func (v *verifier) walk(dir string) {
	var head, objects bool
	err := v.each(dir, func(e fs.DirEntry) {
		v.r.Entries++
		switch e.Name() {
		case "HEAD":
			head = true
		case "objects", "commondir":
			objects = true
		}
		if p := filepath.Join(dir, e.Name()); v.entry(p, e) {
			v.walk(p)
		}
	})
	switch {
	case err != nil && v.sealed(dir):
		return
	case err != nil:
		v.r.fail(dir, "could not be checked: "+err.Error())
		return
	}
	if head && objects {
		// Walked below too: a folder git takes for a bare repository
		// can hold a .git, a nested repository or an agent's folder
		// that git and the agents still find from inside it.
		v.gitDir(dir, false)
	}
}

// entry checks one entry of the walk and says whether to go below it.
func (v *verifier) entry(path string, d fs.DirEntry) bool {
	name := d.Name()
	if protected.IsGitName(name) {
		v.gitEntry(path, d)
		// Below .git itself nothing is walked (gitDir checks what git
		// reads there); a case variant (.GIT) is a plain folder to git
		// and the agents on a case-sensitive file system, walked on.
		return d.IsDir() && name != ".git"
	}
	if m, ok := protected.AnywhereNamed(name); ok && !v.opened(m.Key) && !v.pinned[path] && v.changed(path) {
		v.quarantine(path, "a protected "+m.Key+" made during the command ("+m.Why+"): moved aside")
		return false
	}
	return d.IsDir()
}

// gitEntry checks a .git folder, or a .git file or link and where it
// points.
func (v *verifier) gitEntry(path string, d fs.DirEntry) {
	if d.IsDir() {
		v.gitDir(path, false)
		return
	}
	target, ok := gitPointer(path, d)
	switch {
	case !ok && v.changed(path):
		v.quarantine(path, "a .git pointer made during the command that git cannot follow: moved aside")
	case !ok:
	case !v.inArea(target) && v.changed(path):
		v.quarantine(path, "a .git pointer made during the command leads out of the workspace ("+target+"): moved aside")
	case v.inArea(target):
		v.gitDir(target, v.changed(path)) // a new pointer makes whatever it leads to git's now
	}
}

// gitPointer reads where a .git file (gitdir: X) or link leads, as git
// reads it (gitPath).
func gitPointer(path string, d fs.DirEntry) (string, bool) {
	dir := filepath.Dir(path)
	if d.Type()&fs.ModeSymlink != 0 {
		t, err := os.Readlink(path)
		if err != nil {
			return "", false
		}
		return resolve(dir, t), true
	}
	data, err := readSmall(path)
	if err != nil {
		return "", false
	}
	t, ok := strings.CutPrefix(data, "gitdir: ")
	if !ok || gitPath(t) == "" {
		return "", false
	}
	return resolve(dir, gitPath(t)), true
}

// gitPath is a path as git reads it from a .git file (after "gitdir: ")
// or a commondir: the line ends trimmed, nothing else (spaces around it
// are part of the path), and cut at a NUL byte. Reading it any other way
// would check a decoy beside the folder git uses ("evil" for "evil ").
func gitPath(s string) string {
	s = strings.TrimRight(s, "\r\n")
	if i := strings.IndexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	return s
}

func resolve(dir, p string) string {
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	if c, err := filepath.EvalSymlinks(p); err == nil {
		return c
	}
	return filepath.Clean(p)
}

func (v *verifier) opened(key string) bool {
	for _, k := range v.open {
		if strings.EqualFold(k, key) {
			return true
		}
	}
	return false
}

// changed reports whether path (not followed) was made or changed since
// the command started: its status change time, which no program can set
// back. A path that cannot be looked at counts as changed.
func (v *verifier) changed(path string) bool {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false
	}
	return err != nil || !changeTime(fi).Before(v.since)
}

func (v *verifier) inArea(p string) bool {
	for _, a := range v.areas {
		if p == a || strings.HasPrefix(p, a+"/") {
			return true
		}
	}
	return false
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// maxRead bounds what readSmall reads: a config or pointer file larger
// than this is not one git init or clone wrote (and is moved aside).
const maxRead = 256 << 10

// readSmall reads a pointer or config file, refusing a large one. A file
// the command made unreadable is made readable first.
func readSmall(path string) (string, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrPermission) && chmodAdd(path, 0o400) == nil {
		f, err = os.Open(path)
	}
	if err != nil {
		return "", err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxRead+1))
	switch {
	case err != nil:
		return "", err
	case len(data) > maxRead:
		return "", fmt.Errorf("%s is over %d bytes", path, maxRead)
	}
	return string(data), nil
}

func cleanAll(ps []string) []string {
	out := make([]string, 0, len(ps))
	for _, p := range ps {
		if c, err := filepath.EvalSymlinks(p); err == nil {
			p = c
		}
		out = append(out, filepath.Clean(p))
	}
	return out
}
