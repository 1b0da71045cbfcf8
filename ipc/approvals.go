package ipc

import (
	"errors"
	"fmt"
	"net/http"
	"path/filepath"

	"pathgrant/grants"
	"pathgrant/guard"
	"pathgrant/wire"
)

// offer turns an eligible denial into an approval request, or counts a
// repeat of one already pending. Only a new request is shown and
// notified. ok is false when prompts are paused or the session has too many
// pending; the denial is then audited and stays a plain deny.
func (s *Server) offer(sess *session, req wire.CheckRequest, d guard.Decision) (wire.Request, bool) {
	a := firstDenied(d)
	rec := grants.Record{Kind: grants.KindDeny, Session: sess.ID, Workflow: sess.Workflow, Agent: sess.Agent,
		Tool: req.Tool, RequestID: req.RequestID, Op: a.Op, Path: a.Path}
	if s.paused.Load() {
		rec.Reason = "prompts paused: eligible denial not offered"
		s.audit(rec)
		return wire.Request{}, false
	}
	r, code, isNew, err := s.queue.submit(wire.Request{
		Session: sess.ID, SessionKind: sess.Kind, Workflow: sess.Workflow, Agent: sess.Agent, Tool: req.Tool,
		Command: req.Command, Op: a.Op, Path: a.Path, Requested: a.Requested, Suggested: *d.Suggested,
		RequestID:      req.RequestID,
		RequestContext: wire.RequestContext{Cwd: sess.Cwd, Workspace: sess.roots.Workspace, Reason: d.Reason},
	}, ceilingFor(*d.Suggested, sess.policy.Offerable))
	if err != nil {
		rec.Reason = err.Error()
		s.audit(rec)
		return wire.Request{}, false
	}
	if isNew {
		rec.Kind, rec.Reason = grants.KindRequest, "approval requested"
		s.audit(rec)
		ans := s.answer(sess, req, d)
		ans.Pending = r.ID
		s.hub.publish(wire.Event{Type: wire.EventRequestCreated, Time: s.now(), Session: sess.ID, Answer: &ans, Request: &r})
		if s.cfg.Approver != nil {
			s.cfg.Approver.Show(r, code)
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

// authority is where a decision comes from: the person in the app's own
// windows (in process), or a caller over the socket, who must hold the
// request's approval code to approve.
type authority int

const (
	byPerson authority = iota // the prompt and settings windows, in process
	byCode                    // the decision route: approving needs the code
)

// decide turns a decision into a grant (or a deny) and ends the request.
// Decisions are serialised so exactly one wins. A denial needs no code;
// an approval over the socket needs the request's code, within its
// ceiling.
func (s *Server) decide(id string, dec wire.Decision, by authority) (wire.Request, *apiError) {
	s.decideMu.Lock()
	defer s.decideMu.Unlock()
	req, _, ok := s.queue.get(id)
	switch {
	case !ok:
		return wire.Request{}, errorf(http.StatusNotFound, "", "no approval request %s", id)
	case req.State != wire.StatePending:
		return req, errorf(http.StatusConflict, "", "approval request %s is already %s", id, req.State)
	}
	if dec.Scope == "deny" {
		return s.finish(id, wire.StateDenied, "deny", "", "denied by the user")
	}
	scope, err := grants.ParseScope(dec.Scope)
	if err != nil {
		return wire.Request{}, errorf(http.StatusBadRequest, "", "%v (or deny)", err)
	}
	if dec.Kind != "" && dec.Kind != guard.KindFile && dec.Kind != guard.KindFolder {
		return wire.Request{}, errorf(http.StatusBadRequest, "", "unknown kind %q (want file or folder)", dec.Kind)
	}
	if by == byCode {
		if aerr := s.unlock(req, dec, scope); aerr != nil {
			return wire.Request{}, aerr
		}
	}
	sess := s.sessions.get(req.Session)
	if sess == nil || !s.chainLive(sess) {
		return wire.Request{}, errorf(http.StatusGone, grants.KindStale, "session %s has ended", req.Session)
	}
	target, aerr := grantTarget(sess, req, dec.Kind)
	if aerr != nil {
		return wire.Request{}, aerr
	}
	g, err := s.cfg.Store.Put(grants.NewGrant{Scope: scope, Op: target.Op, Path: target.Path, Kind: target.Kind,
		Session: req.Session, Workflow: req.Workflow, Agent: req.Agent, Tool: req.Tool, RequestID: req.RequestID})
	if err != nil {
		status := http.StatusInternalServerError
		if errors.Is(err, grants.ErrInvalid) || errors.Is(err, grants.ErrDeviceReadOnly) {
			status = http.StatusBadRequest
		}
		return wire.Request{}, errorf(status, "", "grant: %v", err)
	}
	return s.finish(id, wire.StateApproved, string(scope), g.ID, "")
}

// grantTarget is the scope the user chose: the suggested one, or (kind
// folder) the folder holding the requested file. Whatever it is must still
// be offerable to the session (read, eligible, not protected).
func grantTarget(sess *session, req wire.Request, kind guard.GrantKind) (guard.Scope, *apiError) {
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

// finish ends the request in state; why is the audit reason of a denial.
func (s *Server) finish(id, state, scope, grant, why string) (wire.Request, *apiError) {
	r, err := s.queue.decide(id, state, scope, grant)
	if err != nil {
		return r, errorf(http.StatusConflict, "", "approval request %s: %v", id, err)
	}
	if state == wire.StateApproved {
		why = "approved: " + scope
	}
	s.requestEnded(r, why)
	return r, nil
}

// requestEnded audits and publishes the end of an approval request and
// withdraws its prompt. Approvals are audited by the store with the grant.
func (s *Server) requestEnded(r wire.Request, reason string) {
	if r.State != wire.StateApproved {
		kind := grants.KindDeny
		if r.State == wire.StateExpired {
			kind = grants.KindExpire
		}
		s.audit(grants.Record{Kind: kind, Session: r.Session, Workflow: r.Workflow, Agent: r.Agent, Tool: r.Tool,
			RequestID: r.RequestID, Op: r.Op, Path: r.Path, Reason: reason})
	}
	s.hub.publish(wire.Event{Type: wire.EventRequestDecided, Time: s.now(), Session: r.Session, Request: &r})
	if s.cfg.Approver != nil {
		s.cfg.Approver.Withdraw(r.ID)
	}
}

// unlock checks an approval sent over the socket against the request's
// code and ceiling. A missing code, a wrong one and a choice above the
// ceiling are 403 and audited (never with the code); the fifth wrong code
// denies the request. Called with decideMu held.
func (s *Server) unlock(req wire.Request, dec wire.Decision, scope grants.Scope) *apiError {
	rec := grants.Record{Kind: grants.KindForged, Session: req.Session, Workflow: req.Workflow, Agent: req.Agent,
		Tool: req.Tool, RequestID: req.RequestID, Op: req.Op, Path: req.Path}
	if dec.Code == "" {
		rec.Reason = "approval without the request's code refused"
		s.audit(rec)
		return errorf(http.StatusForbidden, grants.KindForged,
			"approving request %s needs its approval code, shown only in the prompt window or the daemon's log line for it", req.ID)
	}
	c := s.queue.tryCode(req.ID, dec.Code)
	switch {
	case !c.ok && c.wrong >= maxCodeTries:
		rec.Reason = fmt.Sprintf("wrong approval code (%d of %d): request denied", c.wrong, maxCodeTries)
		s.audit(rec)
		_, _ = s.finish(req.ID, wire.StateDenied, "deny", "", fmt.Sprintf("denied after %d wrong approval codes", maxCodeTries))
		return errorf(http.StatusForbidden, grants.KindForged, "wrong approval code for request %s: %d wrong codes, the request is now denied", req.ID, maxCodeTries)
	case !c.ok:
		rec.Reason = fmt.Sprintf("wrong approval code (%d of %d)", c.wrong, maxCodeTries)
		s.audit(rec)
		return errorf(http.StatusForbidden, grants.KindForged, "wrong approval code for request %s (%d tries left)", req.ID, maxCodeTries-c.wrong)
	case !c.ceiling.allows(scope, dec.Kind, req.Suggested):
		rec.Reason = fmt.Sprintf("approval above what was offered refused: %s %s", scope, orFile(dec.Kind))
		s.audit(rec)
		return errorf(http.StatusForbidden, grants.KindForged, "request %s was not offered as %s for %s: its code does not allow it", req.ID, scope, orFile(dec.Kind))
	}
	return nil
}

func orFile(k guard.GrantKind) string {
	if k == "" {
		return "the suggested target"
	}
	return "its " + string(k)
}
