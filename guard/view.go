package guard

// RuleView is the rule of an access a confined command's view opens: the
// device policy's caches (read and written), toolchains (read and run)
// and read-only files (read). The kernel allows it there, so a check of a
// command that will run confined does not refuse it.
const RuleView Rule = "confined_view"

// View is what the confinement view of a command opens beyond the
// session's roots. It is set on a Request only for a shell command that
// will run confined: anything it does not list stays judged as before,
// and protected paths and blocked writes are refused first whatever it
// says.
type View struct {
	// Writable are read, written, moved and deleted in: caches.
	Writable []string
	// Runnable are read and executed: toolchains.
	Runnable []string
	// Readable are read: the read-only files.
	Readable []string
}

// viewSets is a View compiled against a policy: canonical roots.
type viewSets struct {
	writable, runnable, readable rootSet
}

// compileView canonicalises v's roots as the policy's own are; a root that
// cannot be canonicalised is left out (the view leaves out one that does
// not exist).
func (p *Compiled) compileView(v *View) *viewSets {
	if v == nil {
		return nil
	}
	set := func(paths []string) rootSet {
		out := rootSet{}
		for _, r := range paths {
			if c, err := p.canon.Canonical(r, "/", true); err == nil {
				out[c] = struct{}{}
			}
		}
		return out
	}
	return &viewSets{writable: set(v.Writable), runnable: set(v.Runnable), readable: set(v.Readable)}
}

// allows reports whether the view opens a's op on a's path: a tree
// access only when its whole subtree lies in a root, as every path does.
func (v *viewSets) allows(a *Access) bool {
	if v == nil {
		return false
	}
	switch a.Op {
	case OpRead:
		return v.writable.contains(a.Path) || v.runnable.contains(a.Path) || v.readable.contains(a.Path)
	case OpExecute:
		return v.writable.contains(a.Path) || v.runnable.contains(a.Path)
	}
	return v.writable.contains(a.Path)
}
