package engine

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"

	"pathgrant/devicepolicy"
	"pathgrant/grants"
	"pathgrant/guard"
	"pathgrant/wire"
)

// registerHookSession registers a session first seen in a hook's check:
// its workspace is the client's workspace roots or cwd, and it is bound to
// the agent process the hook runs under.
func (s *Engine) registerHookSession(id string, req *wire.CheckRequest, lineage *Lineage) (*session, *Error) {
	chain := lineage.chain()
	if len(chain) < 2 {
		return nil, errorf(Forbidden, grants.KindForged, "cannot identify the agent process behind session %s", id)
	}
	roots := req.WorkspaceRoots
	if len(roots) == 0 {
		roots = []string{req.Cwd}
	}
	sess, err := s.newSession(id, wire.SessionRequest{Agent: req.Agent, Workflow: req.Workflow, Cwd: req.Cwd, Workspace: roots}, nil)
	if err != nil {
		// resolveSession audits the refusal.
		aerr := registrationError(err, "register session "+id)
		if aerr.Code != Forbidden {
			aerr.Kind = grants.KindStale
		}
		return nil, aerr
	}
	if aerr := s.agentBounds(lineage, sess); aerr != nil {
		return nil, aerr
	}
	sess.agent = chain[len(chain)-1]
	if err := s.addSession(sess, sess.agent); err != nil {
		if errors.Is(err, errSessionExists) { // registered concurrently: resolve it as usual
			return s.lookupSession(IDs{Body: id}, "", lineage, nil)
		}
		if errors.Is(err, grants.ErrSessionEnded) { // ended before a restart: never revived
			return nil, errorf(Gone, grants.KindStale, "session %s has ended", id)
		}
		return nil, registerError(err, "register session "+id)
	}
	return sess, nil
}

// addSession admits sess within the session caps (see admitSession),
// owned by owner, and records it.
func (s *Engine) addSession(sess *session, owner Proc) error {
	s.admitMu.Lock()
	defer s.admitMu.Unlock()
	if aerr := s.admitSession(owner); aerr != nil {
		return aerr
	}
	sess.uncap()
	if err := s.sessions.add(sess); err != nil {
		return err
	}
	if _, err := s.cfg.Store.StartSession(sess.record()); err != nil {
		s.sessions.end(sess.ID)
		return fmt.Errorf("record session: %w", err)
	}
	s.owners.add(sess.ID, owner, sess.tokenHash == [32]byte{})
	s.watchSession(sess)
	return nil
}

// registerError is a refusal from addSession as it is answered: a cap's
// own status (429), else 500.
func registerError(err error, what string) *Error {
	var ae *Error
	if errors.As(err, &ae) {
		return ae
	}
	return errorf(Internal, "", "%s: %v", what, err)
}

// peerProc is the process at the other end of the request, the first of
// its lineage; the zero Proc when it cannot be read.
func peerProc(l *Lineage) Proc {
	got := l.upTo(func(got []LineageEntry) bool { return len(got) > 0 })
	if len(got) == 0 {
		return Proc{}
	}
	return got[0].Proc
}

// newSession validates a registration and compiles its policy. A child's
// roots must lie inside its parent's, and it inherits the parent's
// blocked-write paths, so it can never hold more than the parent.
func (s *Engine) newSession(id string, req wire.SessionRequest, parent *session) (*session, error) {
	kind := req.Kind
	if kind == "" && parent != nil {
		kind = wire.KindBackground
	}
	kind, err := validKind(kind)
	if err != nil {
		return nil, err
	}
	if !filepath.IsAbs(req.Cwd) {
		return nil, fmt.Errorf("cwd %q is not absolute", req.Cwd)
	}
	sp, err := s.canonicalRoots(req)
	if err != nil {
		return nil, err
	}
	if berr := checkBounds(sp, s.registrationBounds()); berr != nil {
		return nil, berr
	}
	if parent != nil {
		if err := within(sp, parent.roots); err != nil {
			return nil, err
		}
		sp.BlockedWrite = append(sp.BlockedWrite, parent.roots.BlockedWrite...)
	}
	sess := &session{
		ID: id, Agent: shownName(req.Agent), Workflow: shownName(req.Workflow), Kind: kind, Parent: parent, Cwd: sp.Cwd,
		Env: req.Env, Started: s.now(), Expires: s.now().Add(s.cfg.SessionMaxAge), roots: sp,
	}
	if _, err := s.compiled(sess); err != nil {
		return nil, err
	}
	return sess, nil
}

// canonicalRoots resolves every root the way the guard will, so that the
// breadth and parent checks judge the real locations.
func (s *Engine) canonicalRoots(req wire.SessionRequest) (guard.SessionPolicy, error) {
	c := guard.Canonicalizer{Home: s.cfg.Home}
	cwd, err := c.Canonical(req.Cwd, "/", true)
	if err != nil {
		return guard.SessionPolicy{}, fmt.Errorf("cwd: %w", err)
	}
	sp := guard.SessionPolicy{Cwd: cwd}
	for _, l := range []struct {
		in  []string
		out *[]string
	}{{req.Workspace, &sp.Workspace}, {req.ReadOnly, &sp.ReadOnly}, {req.BlockedWrite, &sp.BlockedWrite}} {
		for _, p := range l.in {
			canon, err := c.Canonical(p, cwd, true)
			if err != nil {
				return guard.SessionPolicy{}, fmt.Errorf("root %q: %w", p, err)
			}
			*l.out = append(*l.out, canon)
		}
	}
	return sp, checkRoots(sp.Workspace)
}

// within refuses a child policy that reaches outside its parent's.
func within(child, parent guard.SessionPolicy) error {
	inside := func(p string, roots ...[]string) bool {
		return slices.ContainsFunc(slices.Concat(roots...), func(r string) bool { return guard.Within(r, p) })
	}
	for _, w := range child.Workspace {
		if !inside(w, parent.Workspace) {
			return fmt.Errorf("workspace %s is outside the parent session's workspace", w)
		}
	}
	for _, r := range child.ReadOnly {
		if !inside(r, parent.Workspace, parent.ReadOnly) {
			return fmt.Errorf("read-only root %s is outside what the parent session may read", r)
		}
	}
	return nil
}

// devicePolicy is the device policy in force plus the hook settings
// files of these workspaces.
func (s *Engine) devicePolicy(workspaces []string) guard.DevicePolicy {
	return s.devicePolicyOf(s.deviceFile(), workspaces)
}

// devicePolicyOf is the guard's device policy: Config.Device's protected
// paths, the file's eligible roots and allow_protected, and the hook
// settings files of these workspaces.
func (s *Engine) devicePolicyOf(file devicepolicy.Policy, workspaces []string) guard.DevicePolicy {
	d := guard.DevicePolicy{EligibleReadOnly: file.EligibleReadOnly, Protected: slices.Clone(s.cfg.Device.Protected),
		AllowProtected: file.AllowProtected, NeverEligible: file.NeverEligible}
	for _, w := range workspaces {
		for _, rel := range workspaceProtectedFor(d.AllowProtected) {
			d.Protected = append(d.Protected, filepath.Join(w, rel))
		}
	}
	return d
}

// Register registers a session (POST /v1/sessions) for a caller with
// lineage l. A child names its parent, whose token it presents; a caller
// under an agent may only register a child of its own session; the roots
// must pass the registration bounds. The token is in the answer only: the
// engine keeps its hash.
func (s *Engine) Register(req wire.SessionRequest, token string, l *Lineage) (wire.SessionResponse, *Error) {
	var parent *session
	if req.Parent != "" {
		p, err := s.resolveSession(IDs{Body: req.Parent}, token, l, nil)
		if err != nil {
			return wire.SessionResponse{}, err
		}
		parent = p
	}
	if aerr := s.agentParent(l, parent); aerr != nil {
		s.Audit(grants.Record{Kind: aerr.Kind, Agent: req.Agent, Workflow: req.Workflow, Reason: aerr.Msg})
		return wire.SessionResponse{}, aerr
	}
	sess, err := s.newSession(newID(), req, parent)
	if err != nil {
		aerr := registrationError(err, "register session")
		if aerr.Code == Forbidden {
			s.Audit(grants.Record{Kind: aerr.Kind, Agent: req.Agent, Workflow: req.Workflow, Path: boundsRoot(err), Reason: aerr.Msg})
		}
		return wire.SessionResponse{}, aerr
	}
	if aerr := bindLauncher(sess, req, l); aerr != nil {
		return wire.SessionResponse{}, aerr
	}
	tok, hash := newToken()
	sess.tokenHash = hash
	if err := s.addSession(sess, peerProc(l)); err != nil {
		return wire.SessionResponse{}, registerError(err, "register session")
	}
	return wire.SessionResponse{ID: sess.ID, Token: tok, Kind: sess.Kind, Expires: sess.Expires}, nil
}
