package sandbox

import (
	"path/filepath"
	"slices"

	"pathgrant/guard"
)

// PrivateRoots are the folders a view makes its own, empty and private: a
// new tmpfs at /tmp, and /dev/shm in its new /dev.
var PrivateRoots = []string{"/tmp", "/dev/shm"}

// bound is a tree the view binds and the rights the rules must give the
// whole of it for a rule on a folder above it to add nothing there.
type bound struct {
	path string
	need Access
}

// privateRoots gives each private root its read-write rule where that
// rule widens nothing the view binds beneath it.
//
// A Landlock rule covers a file hierarchy as the command sees it, mounts
// included: with the workspace bound at /tmp/proj, a rule on the view's
// /tmp reaches /tmp/proj and everything in it. So the rule on a private
// root is given only when every tree bound beneath it already gets, as a
// whole, what the rule would add: a read-write tree all of ReadWrite, a
// read-only one its reads (a write fails on a read-only mount whatever
// the rules; running a readable file is no more than copying it to the
// tmp dir and running it there). Where a tree beneath needs less (an
// approvable root held by the supervisor, readable only through it; one
// served by pathgrant's file system has its own read rule, and the
// server decides what an open gets on a read-only, noexec mount; a write area
// whose protected or blocked-write paths the rules keep, a link at its
// top among them; a folder grant around protected paths), the private
// root gets no rule at all: nothing can be made, listed or read at its
// top, each bind beneath keeps its own rules, and the command's
// temporary files go to TMPDIR, the session's tmp dir, as they do.
func (b *builder) privateRoots(in Input) {
	trees := b.bound(in)
	for _, root := range PrivateRoots {
		widens := slices.ContainsFunc(trees, func(t bound) bool {
			return (guard.Within(root, t.path) || guard.Within(t.path, root)) && !b.covers(t)
		})
		if !widens {
			b.add(Rule{Path: root, Access: ReadWrite, Why: "private " + root})
		}
	}
}

// bound are the trees BuildView binds for in that lie beneath a private
// root (or hold one), with what each needs: the write areas, the
// read-only roots, the device policy's trees, the approvable roots and
// the read grants the view shows. The rest of what a view binds holds
// nothing a rule could widen (its own binaries, the ssh agent's socket,
// the empty covers and placeholders), or lies inside a write area, which
// a rule widens nothing in when it widens nothing in the area.
func (b *builder) bound(in Input) []bound {
	var out []bound
	add := func(need func(string) Access, paths ...string) {
		for _, p := range paths {
			p = filepath.Clean(p)
			if slices.ContainsFunc(PrivateRoots, func(r string) bool { return guard.Within(r, p) || guard.Within(p, r) }) {
				out = append(out, bound{p, need(p)})
			}
		}
	}
	rw := func(string) Access { return ReadWrite }
	ro := func(string) Access { return ReadOnly }
	p, d := in.Policy, in.Device
	add(rw, p.Workspace...)
	if in.TmpDir != "" {
		add(rw, in.TmpDir)
	}
	add(rw, b.canonicalOnly(d.Caches)...)
	add(ro, p.ReadOnly...)
	add(ro, b.canonicalOnly(d.Toolchains)...)
	add(ro, in.Approvable...)
	add(b.readNeed, b.canonicalOnly(d.ReadOnlyFiles)...)
	for _, g := range slices.Concat(p.Grants, in.Used) {
		path := filepath.Clean(g.Path)
		if c, err := b.fs.Canonical(path); g.Op == guard.OpRead && err == nil && c == path && !in.served(path) {
			add(b.readNeed, path)
		}
	}
	return out
}

// readNeed is what reading path needs: a folder's listing and its files,
// or a file's content. The entry's type is taken from the view's file
// system where it has one (MemoFS), so a folder is not listed for it.
func (b *builder) readNeed(path string) Access {
	if tf, ok := b.fs.(interface {
		Type(string) (EntryType, error)
	}); ok {
		if t, err := tf.Type(path); err == nil && t != TypeDir {
			return ReadFile
		}
		return ReadOnly
	}
	if _, err := b.fs.ReadDir(path); err == nil {
		return ReadOnly
	}
	return ReadFile
}

// covers reports whether the rules built so far give t's whole tree what
// it needs: the rights of the rules on its path and above it add up, as
// Landlock adds them. A path that is not canonical is never covered (the
// kernel drops a rule that meets a link).
func (b *builder) covers(t bound) bool {
	if c, err := b.fs.Canonical(t.path); err != nil || c != t.path {
		return false
	}
	var got Access
	for _, r := range b.rules {
		if guard.Within(r.Path, t.path) && (!r.File || r.Path == t.path) {
			got |= r.Access
		}
	}
	return got&t.need == t.need
}
