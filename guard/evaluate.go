package guard

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"pathgrant/wire"
	"slices"
	"strconv"
	"strings"
)

// Request is one question to the guard: either a single operation on a path,
// or a shell command whose accesses the guard works out itself.
type Request struct {
	Op    Op
	Path  string
	Shell string
	// View, for a shell command that will run confined, is what its
	// confinement view opens beyond the session's roots (view.go); nil
	// for anything else.
	View *View
}

// Verdict is the outcome of an evaluation (the socket's type, package wire).
type Verdict = wire.Verdict

// The two verdicts. There is no third: anything unproven is a deny.
const (
	Allow = wire.Allow
	Deny  = wire.Deny
)

// Rule names the part of the policy that decided an access, so that a denial
// can say which scope denied it.
type Rule = wire.Rule

// The rules, in the order Evaluate applies them.
const (
	RuleDevice       = wire.RuleDevice
	RuleProtected    = wire.RuleProtected
	RuleBlockedWrite = wire.RuleBlockedWrite
	RuleWorkspace    = wire.RuleWorkspace
	RuleReadOnly     = wire.RuleReadOnly
	RuleGrant        = wire.RuleGrant
	RuleOutside      = wire.RuleOutside
	RuleUnproven     = wire.RuleUnproven
)

// Access is one (op, canonical path) the request needs, with its own verdict.
type Access struct {
	Op        Op     `json:"op"`
	Path      string `json:"path"`
	Allowed   bool   `json:"allowed"`
	Reason    string `json:"reason"`
	Tree      bool   `json:"-"` // the whole subtree under Path (grep -r, cp -r)
	Requested string `json:"-"` // the path as the request spelled it
	Rule      Rule   `json:"-"`
	Grant     string `json:"-"` // ID of the grant that allowed it, if any
	Eligible  bool   `json:"-"`
}

// Scope is what an approval would grant.
type Scope = wire.Scope

// Decision is the guard's answer. Its JSON form is the output of
// `pathgrant check`.
type Decision struct {
	Verdict   Verdict  `json:"decision"`
	Eligible  bool     `json:"eligible"`
	Reason    string   `json:"reason"`
	Accesses  []Access `json:"accesses"`
	Suggested *Scope   `json:"suggested_scope"`
}

// ErrBadRequest wraps every error caused by the request itself: an empty
// command, a shell text that does not parse, a missing op.
var ErrBadRequest = errors.New("bad request")

// Evaluate decides req under the compiled policy p and the grants g (nil
// means none). An error means the request itself is malformed; callers must
// treat it as a deny.
func Evaluate(p *Compiled, g Grants, req Request) (Decision, error) {
	if g == nil {
		g = noGrants{}
	}
	var found analysis
	switch {
	case req.Shell != "" && (req.Path != "" || req.Op != ""):
		return Decision{}, fmt.Errorf("%w: give either a shell command or an op and a path, not both", ErrBadRequest)
	case req.View != nil && req.Shell == "":
		return Decision{}, fmt.Errorf("%w: a confinement view is for a shell command only", ErrBadRequest)
	case req.Shell != "":
		a, err := analyzeShell(p, req.Shell)
		if err != nil {
			return Decision{}, err
		}
		found = a
	case req.Op == OpConnect:
		a, err := analyzeConnect(req.Path)
		if err != nil {
			return Decision{}, err
		}
		judgeConnect(g, &a.accesses[0])
		return decide(a), nil
	default:
		a, err := analyzePath(p, req.Op, req.Path)
		if err != nil {
			return Decision{}, err
		}
		found = a
	}
	view := p.compileView(req.View)
	for i := range found.accesses {
		p.judge(g, view, &found.accesses[i])
	}
	return decide(found), nil
}

func analyzePath(p *Compiled, op Op, path string) (analysis, error) {
	if _, err := ParseOp(string(op)); err != nil {
		return analysis{}, fmt.Errorf("%w: %v", ErrBadRequest, err)
	}
	var a analysis
	r := resolver{cwd: p.cwd}
	if err := a.add(p, r, op, path, accessOpts{}); err != nil {
		return analysis{}, fmt.Errorf("%w: %w", ErrBadRequest, err)
	}
	if lexical, ok := p.lexicalForm(path, r.cwd); ok {
		if err := a.add(p, r, op, lexical, accessOpts{}); err != nil {
			return analysis{}, fmt.Errorf("%w: %w", ErrBadRequest, err)
		}
	}
	return a, nil
}

// lexicalForm is path made absolute with its `..` applied lexically, when
// it holds a `..`. A tool's path reaches pathgrant as the agent wrote it,
// and the client opens either that (the kernel applies `..` to where a
// link led) or its lexical clean (Node's path.resolve and path.join,
// which most clients run a relative path through, and some an absolute
// one): the two differ when a link precedes the `..`, and pathgrant cannot
// tell which the client opens, so an op on a path is judged on both.
func (p *Compiled) lexicalForm(path, cwd string) (string, bool) {
	abs, err := p.canon.absolute(path, cwd)
	if err != nil || !slices.Contains(strings.Split(abs, "/"), "..") {
		return "", false
	}
	return filepath.Clean(abs), true
}

// judge gives one access its verdict. Protected paths and blocked writes
// come first so that no root, view or grant can open them.
func (p *Compiled) judge(g Grants, view *viewSets, a *Access) {
	protected := p.reaches(p.protected, a)
	member, plants := p.plants(a)
	switch {
	case a.Rule == RuleDevice:
		a.allow(RuleDevice, "a standard device file")
	case plants:
		a.deny(RuleProtected, "is protected ("+member.Key+": "+member.Why+"): no session may "+string(a.Op)+" it")
	case protected && a.Op != OpRead:
		a.deny(RuleProtected, "is or holds a protected path: no session may "+string(a.Op)+" it")
	case a.Op.Mutates() && p.reaches(p.blockedWrite, a):
		a.deny(RuleBlockedWrite, "is or holds a blocked-write path of the session")
	case p.workspace.contains(a.Path):
		a.allow(RuleWorkspace, "inside the workspace")
	case a.Op == OpRead && p.readOnly.contains(a.Path):
		a.allow(RuleReadOnly, "inside a read-only root")
	case protected:
		a.deny(RuleProtected, "is a protected path outside the workspace")
	case view.allows(a):
		a.allow(RuleView, "inside what the command's confinement opens (the device policy's caches, toolchains, read-only files)")
	default:
		p.judgeOutside(g, a)
	}
}

// reaches reports whether the access touches a root of set: the path lies
// in one; or a recursive access spans one; or the access moves, deletes or
// creates the path above one (mv .claude x, ln -s x .gemini), which would
// carry the root away or let a link redirect it. Writing into an existing
// folder that holds a root (git commit in the workspace) does not.
func (p *Compiled) reaches(set rootSet, a *Access) bool {
	switch {
	case set.contains(a.Path):
		return true
	case !set.overlaps(a.Path):
		return false
	case a.Tree || a.Op == OpMove || a.Op == OpDelete:
		return true
	case a.Op == OpWrite:
		_, err := os.Lstat(a.Path)
		return err != nil // creating the folder (or a link) above a root
	}
	return false
}

// The endings of an outside denial's reason: what the person could do, so
// that the model can tell them, and whether to retry. Each is one line.
const (
	reasonEligible   = "is outside the workspace; reading it can be approved"
	reasonNotOffered = "is outside the workspace and not in a folder pathgrant offers for approval; " +
		"the person can allow it in pathgrant's settings (Audit → Allow…) or add its folder to eligible_read_only in policy.toml; " +
		"do not retry until they say they have"
	reasonNever = "is outside the workspace, in a folder of credentials, configuration or state that pathgrant never offers " +
		"for approval: it can never be approved; do not retry"
	reasonNeverTree = "is outside the workspace and holds a folder of credentials, configuration or state that pathgrant " +
		"never offers for approval: reading it whole can never be approved; do not retry"
	reasonNeverOp = "is outside the workspace, and %s outside it is never offered for approval"
)

// judgeOutside decides an access outside the workspace and the read-only
// roots: in (or, whole, over) a never-offered folder no grant opens it;
// else a grant allows it; else only a read under an eligible root can be
// offered.
func (p *Compiled) judgeOutside(g Grants, a *Access) {
	never := p.NeverOffered(a.Path, a.Tree)
	if id := g.Lookup(a.Op, a.Path, a.Tree); id != "" && !never {
		a.Grant = id
		a.allow(RuleGrant, "allowed by grant "+id)
		return
	}
	switch {
	case a.Op != OpRead:
		a.deny(RuleOutside, fmt.Sprintf(reasonNeverOp, a.Op))
	case p.NeverOffered(a.Path, false):
		a.deny(RuleOutside, reasonNever)
	case never:
		a.deny(RuleOutside, reasonNeverTree)
	case p.eligible.contains(a.Path):
		a.Eligible = true
		a.deny(RuleOutside, reasonEligible)
	default:
		a.deny(RuleOutside, reasonNotOffered)
	}
}

func (a *Access) allow(r Rule, why string) {
	a.Allowed, a.Rule, a.Reason = true, r, why
}

func (a *Access) deny(r Rule, why string) {
	a.Allowed, a.Rule, a.Reason = false, r, fmt.Sprintf("%s %s %s", a.Op, a.Path, why)
}

// decide folds the per-access verdicts and the analysis gaps into one
// decision: allow only when everything was proven and every access allowed.
func decide(found analysis) Decision {
	d := Decision{Verdict: Allow, Accesses: found.accesses}
	if d.Accesses == nil {
		d.Accesses = []Access{}
	}
	var denied []Access
	for _, a := range d.Accesses {
		if !a.Allowed {
			denied = append(denied, a)
		}
	}
	switch {
	case len(found.unproven) > 0:
		d.Verdict, d.Reason = Deny, "cannot prove what the command touches: "+found.unproven[0]
	case len(denied) > 0:
		d.Eligible = allEligible(denied)
		d.Verdict, d.Reason = Deny, blocking(denied).Reason
		if len(denied) > 1 {
			d.Reason += fmt.Sprintf(" (and %d more denied)", len(denied)-1)
		}
	case len(d.Accesses) == 0:
		d.Reason = "touches no files"
	case len(d.Accesses) == 1:
		d.Reason = "its one access is allowed"
	default:
		d.Reason = "all " + strconv.Itoa(len(d.Accesses)) + " accesses are allowed"
	}
	if d.Eligible {
		d.Suggested = suggest(denied[0])
	}
	return d
}

// Blocking is the denied access d's reason names (blocking); false when d
// denies none (an allow, or a command the guard could not prove).
func (d Decision) Blocking() (Access, bool) {
	var denied []Access
	for _, a := range d.Accesses {
		if !a.Allowed {
			denied = append(denied, a)
		}
	}
	if len(denied) == 0 {
		return Access{}, false
	}
	return blocking(denied), true
}

// blocking is the denied access a decision's reason names: the first
// that cannot be offered when there is one (what stands in the way, not
// a read that alone could be approved), else the first.
func blocking(denied []Access) Access {
	for _, a := range denied {
		if !a.Eligible {
			return a
		}
	}
	return denied[0]
}

func allEligible(denied []Access) bool {
	for _, a := range denied {
		if !a.Eligible {
			return false
		}
	}
	return true
}

// suggest returns the narrowest scope that would allow a: the single file,
// or the folder only when the access itself spans a subtree.
func suggest(a Access) *Scope {
	kind := KindFile
	if a.Tree {
		kind = KindFolder
	}
	return &Scope{Op: a.Op, Path: a.Path, Kind: kind}
}

type noGrants struct{}

func (noGrants) Lookup(Op, string, bool) string { return "" }

// deviceFiles are the standard streams and devices that every command may
// use; they are matched on the absolute path as written.
var deviceFiles = map[string]bool{
	"/dev/null": true, "/dev/zero": true, "/dev/random": true, "/dev/urandom": true,
	"/dev/stdin": true, "/dev/stdout": true, "/dev/stderr": true, "/dev/tty": true,
	"/dev/fd/0": true, "/dev/fd/1": true, "/dev/fd/2": true,
}

func isDeviceFile(abs string) bool {
	if !strings.Contains(abs, "/dev") {
		return false
	}
	return deviceFiles[filepath.Clean(abs)]
}
