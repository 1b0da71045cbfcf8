package sandbox

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"

	"pathgrant/guard"
	"pathgrant/wire"
)

// Input is what a ruleset is built from.
type Input struct {
	Policy wire.Policy
	// Used are grants the pre-flight check used: a once grant is consumed
	// by that check and so is missing from Policy, but it was approved for
	// exactly this command.
	Used []guard.Scope
	// TmpDir is the session's private temporary folder (read-write).
	TmpDir string
	// Terminals are the terminals on the standard streams, so that
	// /dev/stdout and friends can be reopened by name.
	Terminals []string
	// System are the locations every command needs (SystemRules).
	System []Rule
	// Device is what the device policy adds to every session.
	Device Device
	// ByMount are blocked-write and protected paths the mount view makes
	// read-only (View.ByMount): the rules need not split write areas
	// around them, so new files can be created next to them.
	ByMount []string
	// PrivateTmp says /tmp and /dev/shm are the view's own, empty and
	// private, and so writable where that widens nothing (privateRoots).
	PrivateTmp bool
	// Approvable are the eligible roots whose opens the supervisor holds
	// (wire.Hold): the view shows them read-only, names and metadata, so
	// that a program can look before it opens; no rule reads them, so
	// only a descriptor the supervisor hands over can.
	Approvable []string
	// ServedFrom, when set, says the held-open file system serves
	// Approvable[i] from ServedFrom[i] (package sandbox/heldfs): the view
	// binds it there and a rule reads it, since the file system, not the
	// rules, decides what an open gets.
	ServedFrom []string
}

// served reports whether path lies under an approvable root that the
// held-open file system serves: a grant there is the server's to honour
// (it serves what the grant covers, and asks for the rest), never bound
// on its own, for the root's read rule would then reach all of it (a
// grant of a folder's listing would read every file in it).
func (in Input) served(path string) bool {
	return len(in.ServedFrom) > 0 && slices.ContainsFunc(in.Approvable, func(r string) bool { return guard.Within(r, path) })
}

// Device is what the device policy file adds to every session's reach in
// a confined command. The daemon's policy answer is meant to carry it
// (the JSON names are the file's); until it does, exec reads the file.
type Device struct {
	// Toolchains are read and executed.
	Toolchains []string `json:"toolchains"`
	// Caches are read and written.
	Caches []string `json:"caches"`
	// ReadOnlyFiles are read (a file, or a folder as a tree).
	ReadOnlyFiles []string `json:"read_only_files"`
	// SSHAgent lets the command reach the ssh agent's socket.
	SSHAgent bool `json:"ssh_agent"`
	// AllowProtected are the members of the protected set the device
	// policy opens (allow_protected): the view leaves them writable.
	AllowProtected []string `json:"allow_protected"`
}

// EntryType is what a directory entry is, without following symlinks.
type EntryType int

// The entry types Build distinguishes.
const (
	TypeOther EntryType = iota // regular file, fifo, socket, device
	TypeDir
	TypeSymlink
)

// Entry is one directory entry.
type Entry struct {
	Name string
	Type EntryType
}

// FS is the view of the file system Build needs: listing a directory (its
// entries' own types, links not followed) and canonicalising a path the
// way the guard does. OSFS is the real one.
type FS interface {
	ReadDir(dir string) ([]Entry, error)
	Canonical(path string) (string, error)
}

// Build returns the rules for in, merged and sorted by path:
//
//   - each workspace root and the tmp dir (write areas) are readable and
//     executable as a whole, and writable except under the blocked-write
//     and protected paths (see split);
//   - read-only roots are readable (ReadOnly);
//   - a read grant of kind folder is readable as a tree except its
//     protected paths, of kind file is readable as that one file;
//     grants for other ops give nothing;
//   - the system locations and terminals as given.
//
// Policy paths must be absolute. An unreadable directory on the way to a
// blocked or protected path is an error: the caller refuses to run.
func Build(in Input, fsys FS) ([]Rule, error) {
	p := in.Policy
	if err := checkAbsolute(p, in); err != nil {
		return nil, err
	}
	b := &builder{fs: fsys}
	byMount := b.canonicalAll(in.ByMount)
	noWrite := slices.DeleteFunc(b.canonicalAll(slices.Concat(p.Protected, p.BlockedWrite)),
		func(path string) bool { return slices.Contains(byMount, path) })
	protected := b.canonicalAll(p.Protected)
	b.add(in.System...)
	for _, t := range in.Terminals {
		b.add(Rule{Path: t, Access: DeviceRW, File: true, Why: "terminal"})
	}
	for _, w := range p.Workspace {
		b.writeArea(w, noWrite, "workspace")
	}
	if in.TmpDir != "" {
		b.writeArea(in.TmpDir, noWrite, "tmp")
	}
	for _, r := range p.ReadOnly {
		b.add(Rule{Path: filepath.Clean(r), Access: ReadOnly, Why: "read-only root"})
	}
	b.device(in.Device, noWrite)
	if len(in.ServedFrom) > 0 {
		for _, r := range in.Approvable {
			b.add(Rule{Path: r, Access: ReadOnly, Why: "approvable (served by pathgrant)"})
		}
	}
	for _, g := range slices.Concat(p.Grants, in.Used) {
		b.grant(g, protected)
	}
	if in.PrivateTmp {
		b.privateRoots(in)
	}
	if b.err != nil {
		return nil, b.err
	}
	return merge(b.rules), nil
}

// checkAbsolute refuses relative paths: they would be resolved against
// whatever directory exec runs in.
func checkAbsolute(p wire.Policy, in Input) error {
	d := in.Device
	paths := slices.Concat(p.Workspace, p.ReadOnly, p.BlockedWrite, p.Protected, in.Terminals, in.ByMount,
		d.Toolchains, d.Caches, d.ReadOnlyFiles)
	for _, g := range slices.Concat(p.Grants, in.Used) {
		paths = append(paths, g.Path)
	}
	if in.TmpDir != "" {
		paths = append(paths, in.TmpDir)
	}
	for _, s := range in.System {
		paths = append(paths, s.Path)
	}
	for _, path := range paths {
		if !filepath.IsAbs(path) {
			return fmt.Errorf("build sandbox rules: path %q is not absolute", path)
		}
	}
	return nil
}

type builder struct {
	fs    FS
	rules []Rule
	err   error
}

func (b *builder) add(rs ...Rule) { b.rules = append(b.rules, rs...) }

// canonicalAll returns each path as given (cleaned) and canonical: the
// daemon sends protected paths as configured, and a link on the way
// means both the link's path and its target must stay out of reach.
func (b *builder) canonicalAll(paths []string) []string {
	var out []string
	for _, p := range paths {
		out = append(out, filepath.Clean(p))
		if c, err := b.fs.Canonical(p); err == nil {
			out = append(out, c)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// writeArea makes root readable and executable, and writable except under
// the paths in noWrite.
func (b *builder) writeArea(root string, noWrite []string, why string) {
	root = filepath.Clean(root)
	b.add(Rule{Path: root, Access: ReadExec, Why: why})
	b.split(root, ReadWrite, noWrite, why)
}

// device adds the device policy's roots at their canonical paths (a
// toolchain root is often a link): toolchains read and run, read-only
// files read, caches written except under the paths in noWrite.
func (b *builder) device(d Device, noWrite []string) {
	for _, t := range b.canonicalOnly(d.Toolchains) {
		b.add(Rule{Path: t, Access: ReadExec, Why: "toolchain"})
	}
	for _, f := range b.canonicalOnly(d.ReadOnlyFiles) {
		b.add(Rule{Path: f, Access: ReadOnly, Why: "read-only file"})
	}
	for _, c := range b.canonicalOnly(d.Caches) {
		b.split(c, ReadWrite, noWrite, "cache")
	}
}

// canonicalOnly returns the canonical form of each path (one that does
// not exist is dropped when the rules are applied).
func (b *builder) canonicalOnly(paths []string) []string {
	var out []string
	for _, p := range paths {
		if c, err := b.fs.Canonical(p); err == nil {
			out = append(out, c)
		}
	}
	return out
}

// grant turns one grant into rules: reads only.
func (b *builder) grant(g guard.Scope, protected []string) {
	if g.Op != guard.OpRead {
		return
	}
	path := filepath.Clean(g.Path)
	if g.Kind == guard.KindFolder {
		b.split(path, ReadOnly, protected, "grant")
		return
	}
	if !insideAny(protected, path) {
		b.add(Rule{Path: path, Access: ReadFile, File: true, Why: "grant"})
	}
}

// split grants access on root's tree except under the excluded paths.
// Landlock rights only add up down a tree, so an excluded path cannot be
// carved out of a rule on one of its ancestors. Instead, every directory
// on the way from root to an excluded path (the spine) gets no rule of its
// own, and each of its other entries gets access as a whole: directories
// the full set, other files the rights a file can hold. Symlinks get
// nothing (their target is covered where it lives). An excluded path that
// does not exist yet is covered the same way, so it cannot be created.
//
// The price: inside a spine directory no entry can be created, removed or
// renamed (that needs rights on the directory itself), though its existing
// files can be written; entries created after the rules were built are
// read-only.
func (b *builder) split(root string, access Access, excluded []string, why string) {
	switch {
	case insideAny(excluded, root):
		return
	case !holdsAny(root, excluded):
		b.add(Rule{Path: root, Access: access, Why: why})
		return
	}
	b.walk(root, access, excluded, why+" (split)")
}

func (b *builder) walk(dir string, access Access, excluded []string, why string) {
	entries, err := b.fs.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return // gone: nothing under it to allow
	}
	if err != nil {
		b.err = cmp.Or(b.err, fmt.Errorf("build sandbox rules: list %s: %w", dir, err))
		return
	}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name)
		switch {
		case slices.Contains(excluded, p), e.Type == TypeSymlink:
		case e.Type == TypeDir && holdsAny(p, excluded):
			b.walk(p, access, excluded, why)
		case e.Type == TypeDir:
			b.add(Rule{Path: p, Access: access, Why: why})
		default:
			b.add(Rule{Path: p, Access: access & FileRights, File: true, Why: why})
		}
	}
}

// insideAny reports whether p is one of roots or lies below one.
func insideAny(roots []string, p string) bool {
	return slices.ContainsFunc(roots, func(r string) bool { return guard.Within(r, p) })
}

// holdsAny reports whether some path lies strictly below dir.
func holdsAny(dir string, paths []string) bool {
	return slices.ContainsFunc(paths, func(p string) bool { return p != dir && guard.Within(dir, p) })
}

// merge joins rules on the same path with the same flags and sorts them,
// so the result is stable and each inode is added once per kind.
func merge(rules []Rule) []Rule {
	type key struct {
		path         string
		follow, file bool
	}
	at := map[key]int{}
	var out []Rule
	for _, r := range rules {
		k := key{r.Path, r.Follow, r.File}
		if i, ok := at[k]; ok {
			out[i].Access |= r.Access
			continue
		}
		at[k] = len(out)
		out = append(out, r)
	}
	slices.SortStableFunc(out, func(a, b Rule) int { return cmp.Compare(a.Path, b.Path) })
	return out
}
