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

// MaxEntries bounds the walk of one Verify: past it the rest is not
// looked at and the report says so (a line, not silence). A workspace of
// 200,000 entries takes a few hundred milliseconds on a warm cache.
const MaxEntries = 200_000

// clockSlack is how far before the clock's reading a change still counts
// as made during the command when Begin cannot read the file system's own
// clock: file times come from the kernel's coarse clock, which lags the
// precise one by up to a tick, and some file systems keep whole seconds
// (two on FAT). Erring early only ever checks more.
const clockSlack = 2 * time.Second

// Start is when a command started, as the write areas' file systems
// tell time (Begin).
type Start struct {
	t time.Time
	// pinned are the protected members at the top of a write area when
	// the command started: the view kept them read-only, so a change in
	// them since is not the command's (the agent's own settings write,
	// outside) and they are left alone.
	pinned map[string]bool
}

// Begin reads the time a command starts at from the file systems of the
// write areas themselves: it makes and removes an empty file in each and
// takes the earliest change time. So a change the command makes is never
// older than it, whatever the file system's time granularity or a network
// file server's clock. Where no file can be made, the clock less
// clockSlack stands in. Call it just before starting the command.
func Begin(writeAreas []string) Start {
	start := time.Now().Add(-clockSlack)
	read := false
	pinned := map[string]bool{}
	for _, a := range cleanAll(writeAreas) {
		es, _ := os.ReadDir(a)
		for _, e := range es {
			if _, ok := protected.AnywhereNamed(e.Name()); ok {
				pinned[filepath.Join(a, e.Name())] = true
			}
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
		if t := changeTime(fi); !read || t.Before(start) {
			start, read = t, true
		}
	}
	return Start{start, pinned}
}

// Verify walks each write area (the workspace roots) and neutralises what
// was made or changed since the command's start (Begin) that would make the
// person's tools run code: in every git directory found (.git folders,
// .git files' gitdir: targets, bare repositories, linked worktrees,
// submodules) hooks, configuration outside what git init and clone write,
// commondir pointers, attributes and todo lists with exec lines; .git
// pointers leading out of the write areas; and members of the protected
// set (package guard/protected) other than those open names. Each is one
// Finding. An error means an area could not be walked at all.
func Verify(writeAreas []string, since Start, open ...string) (Report, error) {
	return verifyPinned(writeAreas, since.t, since.pinned, open)
}

func verifyPinned(writeAreas []string, since time.Time, pinned map[string]bool, open []string) (Report, error) {
	v := newVerifier(writeAreas, since, open)
	v.pinned = pinned
	return v.run()
}

func newVerifier(writeAreas []string, since time.Time, open []string) *verifier {
	v := &verifier{since: since, areas: cleanAll(writeAreas), seen: map[string]bool{}}
	for _, k := range open {
		if m, ok := protected.Named(k); ok {
			v.open = append(v.open, m.Key)
		}
	}
	return v
}

func (v *verifier) run() (Report, error) {
	for _, a := range v.areas {
		if err := v.walk(a); err != nil {
			return v.r, fmt.Errorf("verify %s: %w", a, err)
		}
	}
	return v.r, nil
}

type verifier struct {
	since time.Time
	areas []string
	open  []string
	seen  map[string]bool // git directories checked
	// pinned are members the view kept read-only (Start.pinned).
	pinned map[string]bool
	r      Report
	full   bool
}

func (v *verifier) walk(area string) error {
	return filepath.WalkDir(area, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == area {
				return err
			}
			v.r.add(path, "could not be checked: "+err.Error())
			return nil
		}
		if v.r.Entries++; v.r.Entries > MaxEntries {
			if !v.full {
				v.full = true
				v.r.add(area, fmt.Sprintf("not checked past %d entries", MaxEntries))
			}
			return filepath.SkipAll
		}
		if path == area {
			return nil
		}
		return v.entry(path, d)
	})
}

// entry checks one entry of the walk and says whether to go below it.
func (v *verifier) entry(path string, d fs.DirEntry) error {
	name := d.Name()
	if protected.IsGitName(name) {
		v.gitEntry(path, d)
		return skipDir(d)
	}
	if m, ok := protected.AnywhereNamed(name); ok && !v.opened(m.Key) && !v.pinned[path] && v.changed(path) {
		v.quarantine(path, "a protected "+m.Key+" made during the command ("+m.Why+"): moved aside")
		return skipDir(d)
	}
	if d.IsDir() && v.gitDirByContent(path) {
		v.gitDir(path)
		return filepath.SkipDir
	}
	return nil
}

func skipDir(d fs.DirEntry) error {
	if d.IsDir() {
		return filepath.SkipDir
	}
	return nil
}

// gitEntry checks a .git folder, or a .git file or link and where it
// points.
func (v *verifier) gitEntry(path string, d fs.DirEntry) {
	if d.IsDir() {
		v.gitDir(path)
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
		v.gitDir(target)
	}
}

// gitPointer reads where a .git file (gitdir: X) or link leads.
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
	t, ok := strings.CutPrefix(strings.TrimSpace(data), "gitdir:")
	if !ok {
		return "", false
	}
	return resolve(dir, strings.TrimSpace(t)), true
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

// gitDirByContent: git takes a folder with HEAD and objects (or
// commondir) for a repository.
func (v *verifier) gitDirByContent(dir string) bool {
	if !exists(filepath.Join(dir, "HEAD")) {
		return false
	}
	return exists(filepath.Join(dir, "objects")) || exists(filepath.Join(dir, "commondir"))
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
// back.
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

// quarantine renames path aside (path.pathgrant-quarantined), takes
// execute permission off, and reports it.
func (v *verifier) quarantine(path, why string) {
	dst := path + Quarantined
	if err := os.Rename(path, dst); err != nil {
		v.r.add(path, why+"; moving it aside failed: "+err.Error())
		return
	}
	if fi, err := os.Lstat(dst); err == nil && fi.Mode().IsRegular() {
		_ = os.Chmod(dst, fi.Mode().Perm()&^0o111)
	}
	v.r.add(path, why+" -> "+filepath.Base(dst))
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// maxRead bounds what readSmall reads: a config or pointer file larger
// than this is not one git init or clone wrote.
const maxRead = 256 << 10

// readSmall reads a pointer or config file, refusing a large one.
func readSmall(path string) (string, error) {
	f, err := os.Open(path)
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
