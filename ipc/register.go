package ipc

import (
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"

	"pathgrant/grants"
	"pathgrant/guard"
	"pathgrant/wire"
)

func (s *Server) handleRegister(w http.ResponseWriter, r *http.Request) {
	var req wire.SessionRequest
	if err := decodeStrict(r, &req); err != nil {
		writeError(w, err)
		return
	}
	lineage := s.lineage(r)
	var parent *session
	if req.Parent != "" {
		p, err := s.resolveSession(idSources{Body: req.Parent}, r.Header.Get(wire.HeaderToken), lineage, nil)
		if err != nil {
			writeError(w, err)
			return
		}
		parent = p
	}
	if aerr := s.agentParent(r, parent); aerr != nil {
		s.audit(grants.Record{Kind: aerr.kind, Agent: req.Agent, Workflow: req.Workflow, Reason: aerr.msg})
		writeError(w, aerr)
		return
	}
	sess, err := s.newSession(newID(), req, parent)
	if err != nil {
		aerr := registrationError(err, "register session")
		if aerr.status == http.StatusForbidden {
			s.audit(grants.Record{Kind: aerr.kind, Agent: req.Agent, Workflow: req.Workflow, Path: boundsRoot(err), Reason: aerr.msg})
		}
		writeError(w, aerr)
		return
	}
	if aerr := bindLauncher(sess, req, lineage); aerr != nil {
		writeError(w, aerr)
		return
	}
	token, hash := newToken()
	sess.tokenHash = hash
	if err := s.addSession(sess, peerProc(lineage)); err != nil {
		writeError(w, registerError(err, "register session"))
		return
	}
	writeJSON(w, http.StatusCreated, wire.SessionResponse{ID: sess.ID, Token: token, Kind: sess.Kind, Expires: sess.Expires})
}

// registerHookSession registers a session first seen in a hook's check:
// its workspace is the client's workspace roots or cwd, and it is bound to
// the agent process the hook runs under.
func (s *Server) registerHookSession(id string, req *wire.CheckRequest, lineage *lineageOf) (*session, *apiError) {
	chain := lineage.chain()
	if len(chain) < 2 {
		return nil, errorf(http.StatusForbidden, grants.KindForged, "cannot identify the agent process behind session %s", id)
	}
	roots := req.WorkspaceRoots
	if len(roots) == 0 {
		roots = []string{req.Cwd}
	}
	sess, err := s.newSession(id, wire.SessionRequest{Agent: req.Agent, Workflow: req.Workflow, Cwd: req.Cwd, Workspace: roots}, nil)
	if err != nil {
		// resolveSession audits the refusal.
		aerr := registrationError(err, "register session "+id)
		if aerr.status != http.StatusForbidden {
			aerr.kind = grants.KindStale
		}
		return nil, aerr
	}
	if aerr := s.agentBounds(lineage, sess); aerr != nil {
		return nil, aerr
	}
	sess.agent = chain[len(chain)-1]
	if err := s.addSession(sess, sess.agent); err != nil {
		if errors.Is(err, errSessionExists) { // registered concurrently: resolve it as usual
			return s.lookupSession(idSources{Body: id}, "", lineage, nil)
		}
		if errors.Is(err, grants.ErrSessionEnded) { // ended before a restart: never revived
			return nil, errorf(http.StatusGone, grants.KindStale, "session %s has ended", id)
		}
		return nil, registerError(err, "register session "+id)
	}
	return sess, nil
}

// addSession admits sess within the session caps (see admitSession),
// owned by owner, and records it.
func (s *Server) addSession(sess *session, owner Proc) error {
	s.admitMu.Lock()
	defer s.admitMu.Unlock()
	if aerr := s.admitSession(owner); aerr != nil {
		return aerr
	}
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
func registerError(err error, what string) *apiError {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae
	}
	return errorf(http.StatusInternalServerError, "", "%s: %v", what, err)
}

// peerProc is the process at the other end of the request, the first of
// its lineage; the zero Proc when it cannot be read.
func peerProc(l *lineageOf) Proc {
	got := l.upTo(func(got []lineageEntry) bool { return len(got) > 0 })
	if len(got) == 0 {
		return Proc{}
	}
	return got[0].Proc
}

// newSession validates a registration and compiles its policy. A child's
// roots must lie inside its parent's, and it inherits the parent's
// blocked-write paths, so it can never hold more than the parent.
func (s *Server) newSession(id string, req wire.SessionRequest, parent *session) (*session, error) {
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
	policy, err := guard.Policy{SessionPolicy: sp, DevicePolicy: s.devicePolicy(sp.Workspace)}.Compile(s.cfg.Home)
	if err != nil {
		return nil, err
	}
	return &session{
		ID: id, Agent: req.Agent, Workflow: req.Workflow, Kind: kind, Parent: parent, Cwd: sp.Cwd,
		Env: req.Env, Expires: s.now().Add(s.cfg.SessionMaxAge), roots: sp, policy: policy,
	}, nil
}

// canonicalRoots resolves every root the way the guard will, so that the
// breadth and parent checks judge the real locations.
func (s *Server) canonicalRoots(req wire.SessionRequest) (guard.SessionPolicy, error) {
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

// devicePolicy is the device policy plus the hook settings files of these
// workspaces.
func (s *Server) devicePolicy(workspaces []string) guard.DevicePolicy {
	d := s.cfg.Device
	d.Protected = slices.Clone(d.Protected)
	d.AllowProtected = s.deviceFile().AllowProtected
	for _, w := range workspaces {
		for _, rel := range workspaceProtectedFor(d.AllowProtected) {
			d.Protected = append(d.Protected, filepath.Join(w, rel))
		}
	}
	return d
}
