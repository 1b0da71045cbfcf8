package guard

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"pathgrant/wire"
	"strconv"
	"strings"
)

// Request is one question to the guard: either a single operation on a path,
// or a shell command whose accesses the guard works out itself.
type Request struct {
	Op    Op
	Path  string
	Shell string
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
	for i := range found.accesses {
		p.judge(g, &found.accesses[i])
	}
	return decide(found), nil
}

func analyzePath(p *Compiled, op Op, path string) (analysis, error) {
	if _, err := ParseOp(string(op)); err != nil {
		return analysis{}, fmt.Errorf("%w: %v", ErrBadRequest, err)
	}
	var a analysis
	if err := a.add(p, resolver{cwd: p.cwd}, op, path, accessOpts{}); err != nil {
		return analysis{}, fmt.Errorf("%w: %w", ErrBadRequest, err)
	}
	return a, nil
}

// judge gives one access its verdict. Protected paths and blocked writes
// come first so that no root or grant can open them.
func (p *Compiled) judge(g Grants, a *Access) {
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

func (p *Compiled) judgeOutside(g Grants, a *Access) {
	if id := g.Lookup(a.Op, a.Path, a.Tree); id != "" {
		a.Grant = id
		a.allow(RuleGrant, "allowed by grant "+id)
		return
	}
	if a.Op == OpRead && p.eligible.contains(a.Path) {
		a.Eligible = true
		a.deny(RuleOutside, "is outside the workspace; reading it can be approved")
		return
	}
	what := "is outside the workspace"
	if a.Op != OpRead {
		what = "is outside the workspace, and " + string(a.Op) + " outside it is never offered for approval"
	}
	a.deny(RuleOutside, what)
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
		d.Verdict, d.Reason = Deny, denied[0].Reason
		d.Eligible = allEligible(denied)
		if len(denied) > 1 {
			d.Reason += fmt.Sprintf(" (and %d more denied)", len(denied)-1)
		}
	case len(d.Accesses) == 0:
		d.Reason = "touches no files"
	default:
		d.Reason = "all " + strconv.Itoa(len(d.Accesses)) + " accesses are allowed"
	}
	if d.Eligible {
		d.Suggested = suggest(denied[0])
	}
	return d
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
