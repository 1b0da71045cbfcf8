package ipc

import (
	"errors"
	"net/http"
	"path/filepath"

	"pathgrant/grants"
	"pathgrant/guard"
)

// offer turns an eligible denial into an approval request, or counts a
// repeat of one already pending. Only a new request is shown and
// notified. ok is false when prompts are paused or the session has too many
// pending; the denial is then audited and stays a plain deny.
func (s *Server) offer(sess *session, req CheckRequest, d guard.Decision) (Request, bool) {
	a := firstDenied(d)
	rec := grants.Record{Kind: grants.KindDeny, Session: sess.ID, Workflow: sess.Workflow, Agent: sess.Agent,
		Tool: req.Tool, RequestID: req.RequestID, Op: a.Op, Path: a.Path}
	if s.paused.Load() {
		rec.Reason = "prompts paused: eligible denial not offered"
		s.audit(rec)
		return Request{}, false
	}
	r, isNew, err := s.queue.submit(Request{
		Session: sess.ID, SessionKind: sess.Kind, Workflow: sess.Workflow, Agent: sess.Agent, Tool: req.Tool,
		Command: req.Command, Op: a.Op, Path: a.Path, Requested: a.Requested, Suggested: *d.Suggested,
		RequestID:      req.RequestID,
		RequestContext: RequestContext{Cwd: sess.Cwd, Workspace: sess.roots.Workspace, Reason: d.Reason},
	})
	if err != nil {
		rec.Reason = err.Error()
		s.audit(rec)
		return Request{}, false
	}
	if isNew {
		rec.Kind, rec.Reason = grants.KindRequest, "approval requested"
		s.audit(rec)
		ans := s.answer(sess, req, d)
		ans.Pending = r.ID
		s.hub.publish(Event{Type: EventRequestCreated, Time: s.now(), Session: sess.ID, Answer: &ans, Request: &r})
		if s.cfg.Approver != nil {
			s.cfg.Approver.Show(r)
		}
	}
	return r, true
}

func firstDenied(d guard.Decision) guard.Access {
	for _, a := range d.Accesses {
		if !a.Allowed {
			return a
		}
	}
	return guard.Access{}
}

// decide turns a decision into a grant (or a deny) and ends the request.
// Decisions are serialised so exactly one wins.
func (s *Server) decide(id string, dec Decision) (Request, *apiError) {
	s.decideMu.Lock()
	defer s.decideMu.Unlock()
	req, _, ok := s.queue.get(id)
	switch {
	case !ok:
		return Request{}, errorf(http.StatusNotFound, "", "no approval request %s", id)
	case req.State != StatePending:
		return req, errorf(http.StatusConflict, "", "approval request %s is already %s", id, req.State)
	}
	if dec.Scope == "deny" {
		return s.finish(id, StateDenied, "deny", "")
	}
	scope, err := grants.ParseScope(dec.Scope)
	if err != nil {
		return Request{}, errorf(http.StatusBadRequest, "", "%v (or deny)", err)
	}
	sess := s.sessions.get(req.Session)
	if sess == nil || !s.chainLive(sess) {
		return Request{}, errorf(http.StatusGone, grants.KindStale, "session %s has ended", req.Session)
	}
	target, aerr := grantTarget(sess, req, dec.Kind)
	if aerr != nil {
		return Request{}, aerr
	}
	g, err := s.cfg.Store.Put(grants.NewGrant{Scope: scope, Op: target.Op, Path: target.Path, Kind: target.Kind,
		Session: req.Session, Workflow: req.Workflow, Agent: req.Agent, Tool: req.Tool, RequestID: req.RequestID})
	if err != nil {
		status := http.StatusInternalServerError
		if errors.Is(err, grants.ErrInvalid) || errors.Is(err, grants.ErrDeviceReadOnly) {
			status = http.StatusBadRequest
		}
		return Request{}, errorf(status, "", "grant: %v", err)
	}
	return s.finish(id, StateApproved, string(scope), g.ID)
}

// grantTarget is the scope the user chose: the suggested one, or (kind
// folder) the folder holding the requested file. Whatever it is must still
// be offerable to the session (read, eligible, not protected).
func grantTarget(sess *session, req Request, kind guard.GrantKind) (guard.Scope, *apiError) {
	t := req.Suggested
	switch kind {
	case "", t.Kind:
	case guard.KindFolder:
		t.Path, t.Kind = filepath.Dir(t.Path), guard.KindFolder
	default:
		return t, errorf(http.StatusBadRequest, "", "kind %q cannot widen or change the suggested scope", kind)
	}
	if !sess.policy.Offerable(t.Op, t.Path, t.Kind == guard.KindFolder) {
		return t, errorf(http.StatusForbidden, "", "%s %s cannot be granted to this session", t.Op, t.Path)
	}
	return t, nil
}

func (s *Server) finish(id, state, scope, grant string) (Request, *apiError) {
	r, err := s.queue.decide(id, state, scope, grant)
	if err != nil {
		return r, errorf(http.StatusConflict, "", "approval request %s: %v", id, err)
	}
	reason := "approved: " + scope
	if state != StateApproved {
		reason = "denied by the user"
	}
	s.requestEnded(r, reason)
	return r, nil
}

// requestEnded audits and publishes the end of an approval request and
// withdraws its prompt. Approvals are audited by the store with the grant.
func (s *Server) requestEnded(r Request, reason string) {
	if r.State != StateApproved {
		kind := grants.KindDeny
		if r.State == StateExpired {
			kind = grants.KindExpire
		}
		s.audit(grants.Record{Kind: kind, Session: r.Session, Workflow: r.Workflow, Agent: r.Agent, Tool: r.Tool,
			RequestID: r.RequestID, Op: r.Op, Path: r.Path, Reason: reason})
	}
	s.hub.publish(Event{Type: EventRequestDecided, Time: s.now(), Session: r.Session, Request: &r})
	if s.cfg.Approver != nil {
		s.cfg.Approver.Withdraw(r.ID)
	}
}
