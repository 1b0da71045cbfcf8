package guard

import "pathgrant/wire"

// Grants is the guard's read-only view of what the user has approved. The
// grants store implements it; GrantSet is the in-memory form used by
// `pathgrant check` and tests.
//
// Lookup must not consume or modify anything: Evaluate may look up grants for
// a command that is denied for another reason. Whoever acts on an allow
// decision records the use of the grant IDs in Access.Grant.
type Grants interface {
	// Lookup returns the ID of a live grant that lets op reach the canonical
	// path, or "" when none does. When tree is true the access covers the
	// whole subtree under path (grep -r, cp -r), so only a folder grant on path
	// or one of its ancestors may serve it. A grant serves exactly its own op:
	// a read grant never serves write, move, delete or execute.
	Lookup(op Op, path string, tree bool) (id string)
}

// GrantKind says whether a grant covers one exact path or a folder's subtree.
type GrantKind = wire.GrantKind

// The grant kinds.
const (
	KindFile   = wire.KindFile
	KindFolder = wire.KindFolder
)

// Grant is one approved access on a canonical path.
type Grant struct {
	ID   string
	Op   Op
	Path string // canonical
	Kind GrantKind
}

// Covers reports whether g serves an access of op on the canonical path.
func (g Grant) Covers(op Op, path string, tree bool) bool {
	if g.Op != op {
		return false
	}
	if g.Kind == KindFolder {
		return Within(g.Path, path)
	}
	return !tree && g.Path == path
}

// GrantSet is an in-memory Grants indexed by path, so that a lookup walks the
// requested path's ancestors (O(depth)) instead of scanning every grant.
type GrantSet struct {
	byPath map[string][]Grant
}

// NewGrantSet returns an empty set.
func NewGrantSet() *GrantSet {
	return &GrantSet{byPath: make(map[string][]Grant)}
}

// Add records g. g.Path must already be canonical.
func (s *GrantSet) Add(g Grant) {
	s.byPath[g.Path] = append(s.byPath[g.Path], g)
}

// Len returns the number of grants in the set.
func (s *GrantSet) Len() int {
	n := 0
	for _, gs := range s.byPath {
		n += len(gs)
	}
	return n
}

// Lookup implements Grants.
func (s *GrantSet) Lookup(op Op, path string, tree bool) string {
	for p := range Ancestors(path) {
		for _, g := range s.byPath[p] {
			if g.Covers(op, path, tree) {
				return g.ID
			}
		}
	}
	return ""
}
