package guard

import (
	"fmt"
	"path/filepath"
)

// SessionPolicy is what one agent session may touch without asking.
type SessionPolicy struct {
	Cwd          string   `json:"cwd"`
	Workspace    []string `json:"workspace"`
	ReadOnly     []string `json:"read_only"`
	BlockedWrite []string `json:"blocked_write"`
}

// DevicePolicy holds the rules that belong to this device rather than to a
// session: where a denied read may be offered for approval, and what no
// session may ever change.
type DevicePolicy struct {
	EligibleReadOnly []string `json:"eligible_read_only"`
	Protected        []string `json:"protected"`
	// AllowProtected are members of the protected set (package
	// protected, by key: ".vscode", ".git/config") the person opened for
	// writing in every workspace: the device policy's allow_protected.
	AllowProtected []string `json:"allow_protected,omitempty"`
	// NeverEligible are folders under which nothing is offered for
	// approval or allowed by a grant, whatever EligibleReadOnly says:
	// credentials, configuration and state (devicepolicy.NeverEligible).
	// The protected paths are never offered either.
	NeverEligible []string `json:"never_eligible,omitempty"`
}

// Policy is a session policy together with the device policy. Its JSON form
// is the flat policy file of `pathgrant check`.
type Policy struct {
	SessionPolicy
	DevicePolicy
}

// Compiled is a Policy whose roots are canonical and indexed, ready for
// Evaluate. Build it once per policy change, not per request.
type Compiled struct {
	canon        Canonicalizer
	cwd          string
	pwd          string // the working directory as the policy spelt it: bash's $PWD
	workspace    rootSet
	readOnly     rootSet
	blockedWrite rootSet
	eligible     rootSet
	protected    rootSet
	never        rootSet         // never offered nor granted: NeverEligible
	open         map[string]bool // allow_protected keys, lower case
}

// Compile canonicalises every root of p (following symlinks, so that a
// root reached through a link is matched by its real location) with home
// used for `~`.
func (p Policy) Compile(home string) (*Compiled, error) {
	c := &Compiled{canon: Canonicalizer{Home: home}}
	open, err := compileOpen(p.AllowProtected)
	if err != nil {
		return nil, err
	}
	c.open = open
	if p.Cwd != "" {
		if !filepath.IsAbs(p.Cwd) {
			return nil, fmt.Errorf("cwd %q is not absolute", p.Cwd)
		}
		cwd, err := c.canon.Canonical(p.Cwd, "/", true)
		if err != nil {
			return nil, fmt.Errorf("cwd: %w", err)
		}
		c.cwd, c.pwd = cwd, filepath.Clean(p.Cwd)
	}
	lists := []struct {
		name  string
		paths []string
		dst   *rootSet
	}{
		{"workspace", p.Workspace, &c.workspace},
		{"read_only", p.ReadOnly, &c.readOnly},
		{"blocked_write", p.BlockedWrite, &c.blockedWrite},
		{"eligible_read_only", p.EligibleReadOnly, &c.eligible},
		{"protected", p.Protected, &c.protected},
		{"never_eligible", p.NeverEligible, &c.never},
	}
	for _, l := range lists {
		set, err := c.rootSet(l.paths)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", l.name, err)
		}
		*l.dst = set
	}
	return c, nil
}

// Cwd returns the canonical working directory, or "" when the policy has none.
func (c *Compiled) Cwd() string { return c.cwd }

// Canonicalizer returns the canonicalizer the policy resolves paths with.
func (c *Compiled) Canonicalizer() Canonicalizer { return c.canon }

func (c *Compiled) rootSet(paths []string) (rootSet, error) {
	set := make(rootSet, len(paths))
	for _, p := range paths {
		if p != "" && p[0] != '/' && p[0] != '~' && c.cwd == "" {
			return nil, fmt.Errorf("root %q is relative and the policy has no cwd", p)
		}
		canon, err := c.canon.Canonical(p, c.cwd, true)
		if err != nil {
			return nil, fmt.Errorf("root %q: %w", p, err)
		}
		set[canon] = struct{}{}
	}
	return set, nil
}

// rootSet is a set of canonical roots. Membership of a path walks the path's
// ancestors, so its cost is the path's depth whatever the number of roots.
type rootSet map[string]struct{}

// contains reports whether p is one of the roots or lies below one.
func (s rootSet) contains(p string) bool {
	if len(s) == 0 {
		return false
	}
	for a := range Ancestors(p) {
		if _, ok := s[a]; ok {
			return true
		}
	}
	return false
}

// overlaps reports whether the subtree at p holds any root or lies below one:
// a recursive access on p reaches it either way.
func (s rootSet) overlaps(p string) bool {
	if s.contains(p) {
		return true
	}
	for r := range s {
		if Within(p, r) {
			return true
		}
	}
	return false
}

// Offerable reports whether a read grant on path (its subtree when tree) may
// be offered for approval: a read, under an eligible read-only root, that
// reaches no protected path; or a connection through pathgrant's proxy to
// one destination. Nothing else is ever offered.
func (c *Compiled) Offerable(op Op, path string, tree bool) bool {
	if op == OpConnect { // one destination, as the proxy spelt it
		d, err := Destination(path)
		return !tree && err == nil && d == path
	}
	if op != OpRead || !c.eligible.contains(path) || c.NeverOffered(path, tree) {
		return false
	}
	return true
}

// NeverOffered reports whether reading path (its subtree when tree) lies
// in, or for a subtree spans, a folder never offered for approval: a
// never-eligible folder or a protected path. Such a read is never
// offered, and no grant allows it.
func (c *Compiled) NeverOffered(path string, tree bool) bool {
	if tree {
		return c.never.overlaps(path) || c.protected.overlaps(path)
	}
	return c.never.contains(path) || c.protected.contains(path)
}
