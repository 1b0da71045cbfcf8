package guard

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// entryKind is what an earlier command of the same line left at a path.
type entryKind int

const (
	// entLink is a symbolic link with the entry's target text.
	entLink entryKind = iota
	// entPlain is a file or folder that is not a link; under it only newer
	// entries are known (a copied or new folder holds nothing else that
	// could redirect a path).
	entPlain
	// entGone is a path removed or moved away, with everything under it.
	entGone
	// entUnknown is a path inside a new folder: not a link, and it may or
	// may not exist.
	entUnknown
)

// overlayEntry is one change to the file system that a command earlier in
// the line makes, keyed by the canonical path of the entry itself.
type overlayEntry struct {
	path   string
	kind   entryKind
	target string
}

// overlay is the guard's view of the links, moves and copies made earlier
// in the command line. The disk does not show them yet when the line is
// judged, so without it `ln -s /secret s && cat s/key` would be judged as
// a read of a workspace file. Entries are in order; the newest wins.
type overlay struct {
	entries []overlayEntry
}

// maxOverlayEntries bounds the entries one line may create (a copied tree
// adds one per link inside it); beyond it the line is unproven.
const maxOverlayEntries = 4096

func (o *overlay) empty() bool { return o == nil || len(o.entries) == 0 }

// lookup returns the newest entry that decides what is at p: an entry for
// p itself, or a replaced folder above it (then p is a plain path inside a
// new folder, or gone).
func (o *overlay) lookup(p string) (overlayEntry, bool) {
	if o.empty() {
		return overlayEntry{}, false
	}
	for i := len(o.entries) - 1; i >= 0; i-- {
		e := o.entries[i]
		switch {
		case e.path == p:
			return e, true
		case Within(e.path, p) && e.kind == entPlain:
			return overlayEntry{path: p, kind: entUnknown}, true
		case Within(e.path, p):
			return overlayEntry{path: p, kind: entGone}, true
		}
	}
	return overlayEntry{}, false
}

// touches reports whether an entry lies at, under or above dir: listing dir
// on disk (for a glob) would then not show what bash will see.
func (o *overlay) touches(dir string) bool {
	if o.empty() {
		return false
	}
	for _, e := range o.entries {
		if Within(dir, e.path) || Within(e.path, dir) {
			return true
		}
	}
	return false
}

// linksUnder returns the links of the overlay that are in force under root.
func (o *overlay) linksUnder(root string) []overlayEntry {
	if o.empty() {
		return nil
	}
	var out []overlayEntry
	for _, e := range o.entries {
		if e.kind == entLink && Within(root, e.path) {
			if cur, ok := o.lookup(e.path); ok && cur.kind == entLink && cur.target == e.target {
				out = append(out, e)
			}
		}
	}
	return out
}

func (sa *shellAnalyzer) record(e overlayEntry) {
	if sa.ov == nil {
		sa.ov = &overlay{}
	}
	if len(sa.ov.entries) >= maxOverlayEntries {
		sa.unprove("the command line makes too many links to follow")
		return
	}
	sa.ov.entries = append(sa.ov.entries, e)
}

// resolver returns the resolver for a command running in cwd at this point
// of the line.
func (sa *shellAnalyzer) resolver(cwd string) resolver {
	return resolver{cwd: cwd, ov: sa.ov}
}

// canonical resolves path for a command running in cwd, through the links
// made earlier in the line.
func (sa *shellAnalyzer) canonical(path, cwd string, followLast bool) (string, error) {
	abs, err := sa.p.canon.absolute(path, cwd)
	if err != nil {
		return "", err
	}
	return sa.resolver(cwd).resolve(abs, followLast)
}

// entryAt says what is at the canonical path p (links not followed), as
// bash will find it at this point of the line.
func (sa *shellAnalyzer) entryAt(p string) overlayEntry {
	if e, ok := sa.ov.lookup(p); ok {
		return e
	}
	fi, err := os.Lstat(p)
	switch {
	case err != nil:
		return overlayEntry{path: p, kind: entGone}
	case fi.Mode()&fs.ModeSymlink == 0:
		return overlayEntry{path: p, kind: entPlain}
	}
	target, err := os.Readlink(p)
	if err != nil {
		return overlayEntry{path: p, kind: entGone}
	}
	return overlayEntry{path: p, kind: entLink, target: target}
}

// dirAt reports whether path (following links) is a folder now, and
// whether the guard cannot tell (a path inside a folder made or copied
// earlier in the line may or may not be one). Callers that place entries
// inside a destination folder place them at both spellings when in doubt.
func (sa *shellAnalyzer) dirAt(path, cwd string) (isDir, maybe bool) {
	canon, err := sa.canonical(path, cwd, true)
	if err != nil {
		return false, true
	}
	if e, ok := sa.ov.lookup(canon); ok {
		return false, e.kind == entPlain || e.kind == entUnknown
	}
	fi, err := os.Stat(canon)
	return err == nil && fi.IsDir(), false
}

// makeLink records a symbolic link at the canonical path link with the
// given target text, and the link's target as an access: a link to a
// place the session may not read is itself a way to it.
func (sa *shellAnalyzer) makeLink(link, target, cwd string) {
	if target == "" {
		sa.unprove("a link with an empty target")
		return
	}
	sa.record(overlayEntry{path: link, kind: entLink, target: target})
	abs := target
	if !filepath.IsAbs(target) {
		abs = filepath.Dir(link) + "/" + target
	}
	canon, err := sa.resolver(cwd).resolve(abs, true)
	if err != nil {
		sa.unprove(fmt.Sprintf("link %s to %s: %v", link, target, err))
		return
	}
	tree := !sa.isRegular(canon)
	acc := Access{Op: OpRead, Requested: target, Path: canon, Tree: tree}
	if isDeviceFile(canon) {
		acc.Rule, acc.Tree = RuleDevice, false
	}
	sa.push(acc)
}

// isRegular reports whether the canonical path is a file that exists on
// disk and was not changed earlier in the line; a link to anything else
// (a folder, a path that may appear later) reaches a whole tree.
func (sa *shellAnalyzer) isRegular(canon string) bool {
	if _, ok := sa.ov.lookup(canon); ok {
		return false
	}
	fi, err := os.Stat(canon)
	return err == nil && fi.Mode().IsRegular()
}

// copyEntry records that the canonical path dst now holds what src held:
// a link stays a link (its text now read from dst's folder), a folder is a
// new folder holding copies of the links under src. mv, cp -P/-r/-a and
// hard links to links all do this.
func (sa *shellAnalyzer) copyEntry(src, dst, cwd string) {
	e := sa.entryAt(src)
	switch e.kind {
	case entGone:
		return
	case entLink:
		sa.makeLink(dst, e.target, cwd)
		return
	}
	sa.record(overlayEntry{path: dst, kind: entPlain})
	links, err := sa.linksBelow(src)
	if err != nil {
		sa.unprove(fmt.Sprintf("cannot list the links under %s: %v", src, err))
		return
	}
	for _, l := range links {
		rel, _ := filepath.Rel(src, l.path)
		sa.makeLink(filepath.Join(dst, rel), l.target, cwd)
	}
}

// linksBelow lists the links strictly under src as bash will find them:
// those on disk (unless src was itself replaced earlier in the line) and
// those the overlay holds.
func (sa *shellAnalyzer) linksBelow(src string) ([]overlayEntry, error) {
	var out []overlayEntry
	if _, replaced := sa.ov.lookup(src); !replaced {
		entries := 0
		err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
			if entries++; entries > maxFollowEntries {
				return fmt.Errorf("more than %d entries", maxFollowEntries)
			}
			if err != nil || p == src || d.Type()&fs.ModeSymlink == 0 {
				return nil
			}
			if e := sa.entryAt(p); e.kind == entLink {
				out = append(out, e)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	for _, e := range sa.ov.linksUnder(src) {
		if e.path != src {
			out = append(out, e)
		}
	}
	return out, nil
}

// removed records that the canonical path p no longer exists.
func (sa *shellAnalyzer) removed(p string) {
	sa.record(overlayEntry{path: p, kind: entGone})
}
