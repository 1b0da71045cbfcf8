package engine

import (
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"pathgrant/grants"
	"pathgrant/guard"
	"pathgrant/wire"
)

// offer turns an eligible denial into an approval request, or counts a
// repeat of one already pending. Only a new request is shown and
// notified. When nothing is offered (the person denied the same access
// for the session, prompts are paused, too many are pending) it says why,
// in the words the agent is told; the denial is audited and stays a plain
// deny. A call that will wait (wait > 0) is counted as waiting from the
// moment the request exists, so no decision can miss it. by is the
// command whose held open asks, "" for any other call.
func (s *Engine) offer(sess *session, req wire.CheckRequest, d guard.Decision, wait time.Duration, by raiser) (offered, string) {
	a := firstDenied(d)
	rec := grants.Record{Kind: grants.KindDeny, Session: sess.ID, Workflow: sess.Workflow, Agent: sess.Agent,
		Tool: req.Tool, RequestID: req.RequestID, Op: a.Op, Path: a.Path}
	if why, ok := s.remembered(sess, a, rec); ok {
		return offered{}, why
	}
	if s.paused.Load() {
		rec.Reason = "prompts paused: eligible denial not offered"
		s.Audit(rec)
		return offered{}, pausedReason(s.cfg.Home, a.Op, a.Path)
	}
	var until time.Time
	if wait > 0 {
		until = s.now().Add(wait)
	}
	o, err := s.queue.submit(s.newRequest(sess, req, d, a), choicesFor(*d.Suggested, s.offerable(sess)), until, by)
	if err != nil {
		rec.Reason = err.Error()
		s.Audit(rec)
		return offered{}, crowdedReason(s.cfg.Home, a.Op, a.Path, err.Error())
	}
	r := o.req
	if !o.isNew {
		s.requestChanged(r)
		return o, ""
	}
	if why, ok := s.remembered(sess, a, rec); ok {
		// denied for the session while this call was on its way: the
		// request it raised is that denial, never a prompt
		_, _ = s.finish(r.ID, wire.StateDenied, string(grants.ScopeSession), "", "remembered denial")
		return offered{}, why
	}
	rec.Kind, rec.Reason = grants.KindRequest, "approval requested"
	s.Audit(rec)
	ans := s.answer(sess, req, d)
	ans.Pending = r.ID
	s.hub.publish(wire.Event{Type: wire.EventRequestCreated, Time: s.now(), Session: sess.ID, Answer: &ans, Request: &r})
	if s.cfg.Approver != nil {
		s.cfg.Approver.Show(r, o.codes)
	}
	return o, ""
}

// remembered reports whether the person denied a's access for sess
// (deny for this session) or on this device, with what the agent is told,
// and audits the first hit and every 100th: bounded, so a retrying agent
// does not flood the log.
func (s *Engine) remembered(sess *session, a guard.Access, rec grants.Record) (string, bool) {
	den, ok := s.denials.match(sess, a.Op, a.Path, s.now())
	if !ok {
		return "", false
	}
	what, why := "remembered denial", rememberedReason
	if den.Device {
		what, why = "device denial", deviceDeniedReason
	}
	if den.Hits == 1 || den.Hits%100 == 0 {
		rec.Reason = fmt.Sprintf("%s (%s so far)", what, plural(den.Hits, "call"))
		s.Audit(rec)
	}
	return why, true
}

// newRequest is the approval request an eligible denial raises, with what
// the person needs to read it: the session's label (agent, cwd, start),
// the tool's own input, the command as the agent wrote it.
func (s *Engine) newRequest(sess *session, req wire.CheckRequest, d guard.Decision, a guard.Access) wire.Request {
	return wire.Request{
		Session: sess.ID, SessionKind: sess.Kind, Workflow: sess.Workflow, Agent: sess.Agent, Tool: req.Tool,
		Command: agentCommand(req), Input: cleanInput(req.Input), Purpose: cleanInput(req.Purpose), Held: cleanInput(req.Held), HeldBy: req.HeldBy, SessionStarted: sess.Started, SessionExpires: sess.ageCap(),
		Op: a.Op, Path: a.Path, Requested: a.Requested, Suggested: *d.Suggested, RequestID: req.RequestID,
		RequestContext: wire.RequestContext{Cwd: sess.Cwd, Workspace: sess.roots.Workspace, Reason: d.Reason},
	}
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
// approval code of the very choice it makes.
type authority int

const (
	byPerson authority = iota // the prompt and settings windows, in process
	byCode                    // the decision route: approving needs the code
)

// decide turns a decision into a grant (or a deny) and ends the request.
// Decisions are serialised so exactly one wins. A denial needs no code;
// an approval over the socket needs the code of the choice it makes.
func (s *Engine) decide(id string, dec wire.Decision, by authority) (wire.Request, *Error) {
	s.decideMu.Lock()
	defer s.decideMu.Unlock()
	full, perr := s.queue.resolve(id)
	if perr != nil {
		return wire.Request{}, prefixError("approval request", id, perr)
	}
	id = full
	req, _, ok := s.queue.get(id)
	switch {
	case !ok:
		return wire.Request{}, errorf(NotFound, "", "no approval request %s", id)
	case req.State != wire.StatePending:
		return req, errorf(Conflict, "", "approval request %s is already %s", id, req.State)
	}
	if dec.Scope == "deny" {
		return s.deny(req, dec)
	}
	scope, err := grants.ParseScope(dec.Scope)
	if err != nil {
		return wire.Request{}, errorf(BadRequest, "", "%v (or deny)", err)
	}
	lasting, aerr := parseFor(dec, scope)
	if aerr != nil {
		return wire.Request{}, aerr
	}
	if dec.Kind != "" && dec.Kind != guard.KindFile && dec.Kind != guard.KindFolder {
		return wire.Request{}, errorf(BadRequest, "", "unknown kind %q (want file or folder)", dec.Kind)
	}
	if by == byCode {
		if aerr := s.unlock(req, dec, scope, lasting); aerr != nil {
			return wire.Request{}, aerr
		}
	}
	sess, aerr := s.decidingFor(req, scope)
	if aerr != nil {
		return wire.Request{}, aerr
	}
	target, aerr := s.grantTarget(s.grantable(sess, req), req, dec, by)
	if aerr != nil {
		return wire.Request{}, aerr
	}
	if target.Kind == guard.KindFolder && scope != grants.ScopeOnce && dec.Kind != guard.KindFolder {
		return wire.Request{}, errorf(BadRequest, "", "approving everything under %s (recursive) for %s needs the folder confirmed (kind folder, or --folder)", target.Path, scope)
	}
	// The calls this approval answers are fixed before its grant exists: a
	// once approval with calls waiting is spent by them; with none, it
	// serves the agent's next try.
	waiting, ok := s.queue.seal(id)
	if !ok {
		return wire.Request{}, errorf(Conflict, "", "approval request %s is no longer pending", id)
	}
	g, err := s.cfg.Store.Put(grants.NewGrant{Scope: scope, Op: target.Op, Path: target.Path, Kind: target.Kind, For: lasting,
		Spent: scope == grants.ScopeOnce && waiting > 0, Session: req.Session, Workflow: req.Workflow, Agent: req.Agent,
		Tool: req.Tool, RequestID: req.RequestID})
	if err != nil {
		s.queue.unseal(id)
		status := Internal
		if errors.Is(err, grants.ErrInvalid) || errors.Is(err, grants.ErrDeviceReadOnly) {
			status = BadRequest
		}
		return wire.Request{}, errorf(status, "", "grant: %v", err)
	}
	s.liftCovered(g)
	return s.finish(id, wire.StateApproved, string(scope), g.ID, "")
}

// decidingFor is the live session an approval of req is for, or nil for
// a request of no session (the person's own, for this device), which
// only a device grant may answer.
func (s *Engine) decidingFor(req wire.Request, scope grants.Scope) (*session, *Error) {
	if req.Session == "" {
		if scope != grants.ScopeDevice {
			return nil, errorf(BadRequest, "", "request %s is for this device, not a session: allow it on this device, or deny it", req.ID)
		}
		return nil, nil
	}
	sess := s.sessions.get(req.Session)
	if sess == nil || !s.chainLive(sess) {
		return nil, errorf(Gone, grants.KindStale, "session %s has ended", req.Session)
	}
	return sess, nil
}

// deny ends a request as the person's denial: one-shot, remembered for
// the rest of the session (Remember), or on this device (Remember and
// Device), so the same access is denied at once from then on without
// asking again. Both are stored and survive a daemon restart.
func (s *Engine) deny(req wire.Request, dec wire.Decision) (wire.Request, *Error) {
	switch {
	case dec.For != "":
		return wire.Request{}, errorf(BadRequest, "", "a denial takes no duration: it is one-shot, remembered for the session, or on this device until lifted")
	case dec.Path != "":
		return wire.Request{}, errorf(BadRequest, "", "a denial is of the request's own path: an edited scope is for allowing")
	case dec.Device && !dec.Remember:
		return wire.Request{}, errorf(BadRequest, "", "a device denial is remembered: send remember with device")
	case !dec.Remember:
		return s.finish(req.ID, wire.StateDenied, "deny", "", "denied by the user")
	case !dec.Device && req.Session == "":
		return wire.Request{}, errorf(BadRequest, "", "request %s has no session to deny it for: deny once, or on this device", req.ID)
	}
	// Remembered before the request ends, so no call answered by the end
	// can ask again in between; forgotten if it does not end.
	den := s.rememberDenial(req, dec.Device)
	scope, what := string(grants.ScopeSession), "for this session (remembered denial "
	if dec.Device {
		scope, what = string(grants.ScopeDevice), "on this device (device denial "
	}
	r, err := s.finish(req.ID, wire.StateDenied, scope, "", "denied by the user "+what+den.ID+")")
	if err != nil {
		if _, lerr := s.denials.lift(den.ID); lerr == nil {
			s.unstoreDenials(den.ID)
		}
	}
	return r, err
}

// deniedReason is what a call that waited on a denied request is told.
func deniedReason(r wire.Request) string {
	switch r.Scope {
	case string(grants.ScopeSession):
		return rememberedReason
	case string(grants.ScopeDevice):
		return deviceDeniedReason
	}
	return deniedOnceReason
}

// maxFor is the longest a limited grant may last; longer is "always"
// (device) or the session's own end.
const maxFor = 366 * 24 * time.Hour

// parseFor reads how long an approval lasts: a session or device grant
// may be limited (For: "15m", "1h", "8h"); a once grant serves one call.
func parseFor(dec wire.Decision, scope grants.Scope) (time.Duration, *Error) {
	switch {
	case dec.Remember:
		return 0, errorf(BadRequest, "", "remember is for a denial (deny for this session), not an approval")
	case dec.For == "":
		return 0, nil
	case scope == grants.ScopeOnce:
		return 0, errorf(BadRequest, "", "a once grant serves one call: it takes no duration")
	}
	d, err := time.ParseDuration(dec.For)
	if err != nil || d <= 0 || d > maxFor {
		return 0, errorf(BadRequest, "", "duration %q: want a positive duration up to %s, such as 15m, 1h or 8h", dec.For, maxFor)
	}
	return d, nil
}

// grantTarget is the scope the person chose: the suggested one, (kind
// folder) the folder holding the requested file, or (Decision.Path) a
// scope they edited (editedTarget). Whatever it is must still be
// offerable (read, eligible or, for a request the person raised, askable,
// and not protected).
func (s *Engine) grantTarget(offerable func(op guard.Op, path string, tree bool) bool, req wire.Request, dec wire.Decision, by authority) (guard.Scope, *Error) {
	t := req.Suggested
	switch dec.Kind {
	case "", t.Kind:
	case guard.KindFolder:
		t.Path, t.Kind = filepath.Dir(t.Path), guard.KindFolder
	default:
		return t, errorf(BadRequest, "", "kind %q cannot widen or change the suggested scope", dec.Kind)
	}
	if dec.Path != "" && dec.Path != t.Path {
		if by == byCode {
			return t, errorf(Forbidden, grants.KindCode, "request %s: a code approves its own choice's scope (%s), not an edited one: edit the scope in pathgrant's window", req.ID, t.Path)
		}
		var aerr *Error
		if t, aerr = editedTarget(req, dec, s.scopeCeiling(req.Suggested.Path)); aerr != nil {
			return t, aerr
		}
	}
	if !offerable(t.Op, t.Path, t.Kind == guard.KindFolder) {
		return t, errorf(Forbidden, "", "%s %s cannot be granted to this session: it is not eligible, or is or holds a protected path", t.Op, t.Path)
	}
	return t, nil
}

// editedTarget is the scope the person edited before allowing
// (Decision.Path): the requested path itself, or a folder above it, no
// higher than ceiling (the eligible root the request lies in, see
// scopeCeiling); a folder must be confirmed (kind folder). Never wider,
// never beside the request.
func editedTarget(req wire.Request, dec wire.Decision, ceiling string) (guard.Scope, *Error) {
	p, sug := dec.Path, req.Suggested
	switch {
	case !filepath.IsAbs(p) || filepath.Clean(p) != p:
		return sug, errorf(BadRequest, "", "scope %q: want an absolute, clean path", p)
	case p == sug.Path:
		return sug, nil
	case !guard.Within(p, sug.Path):
		return sug, errorf(Forbidden, "", "scope %s does not hold the requested %s: the scope is the request's own path or a folder above it", p, sug.Path)
	case !guard.Within(ceiling, p):
		return sug, errorf(Forbidden, "", "scope %s is wider than %s, the folder the request lies in that may be granted: never wider", p, ceiling)
	case dec.Kind != guard.KindFolder:
		return sug, errorf(BadRequest, "", "scope %s is a folder: confirm it as one (kind folder)", p)
	}
	return guard.Scope{Op: sug.Op, Path: p, Kind: guard.KindFolder}, nil
}

// finish ends the request in state; why is the audit reason of a denial.
func (s *Engine) finish(id, state, scope, grant, why string) (wire.Request, *Error) {
	r, err := s.queue.decide(id, state, scope, grant)
	if err != nil {
		return r, errorf(Conflict, "", "approval request %s: %v", id, err)
	}
	if state == wire.StateApproved {
		why = "approved: " + scope
	}
	if n := s.queue.waiting(id); n > 1 {
		why += fmt.Sprintf(" (answers %d waiting calls)", n)
	}
	s.requestEnded(r, why)
	return r, nil
}

// requestEnded audits and publishes the end of an approval request and
// withdraws its prompt. Approvals are audited by the store with the grant.
func (s *Engine) requestEnded(r wire.Request, reason string) {
	if r.State != wire.StateApproved {
		kind := grants.KindDeny
		if r.State == wire.StateExpired {
			kind = grants.KindExpire
		}
		s.Audit(grants.Record{Kind: kind, Session: r.Session, Workflow: r.Workflow, Agent: r.Agent, Tool: r.Tool,
			RequestID: r.RequestID, Op: r.Op, Path: r.Path, Reason: reason})
	}
	s.hub.publish(wire.Event{Type: wire.EventRequestDecided, Time: s.now(), Session: r.Session, Request: &r})
	if s.cfg.Approver != nil {
		// a request that ended in words (its command gone, its client's
		// clock out) is updated first: the window says why in place
		// instead of vanishing (prompt's Dialog.End)
		if u, ok := s.cfg.Approver.(Updater); ok && r.State == wire.StateEnded && r.Ended != "" {
			u.Update(r)
		}
		s.cfg.Approver.Withdraw(r.ID)
	}
}

// unlock checks an approval sent over the socket against the request's
// codes: the code presented must be one of them, and the approval must
// stay within the one choice that code was made for (the same scope and
// target, no longer). A missing code, a wrong one and an approval wider
// than its code's choice are 403 and audited as KindCode (never with the
// code); the fifth wrong code denies the request. Called with decideMu
// held.
func (s *Engine) unlock(req wire.Request, dec wire.Decision, scope grants.Scope, lasting time.Duration) *Error {
	rec := grants.Record{Kind: grants.KindCode, Session: req.Session, Workflow: req.Workflow, Agent: req.Agent,
		Tool: req.Tool, RequestID: req.RequestID, Op: req.Op, Path: req.Path}
	if dec.Code == "" {
		rec.Reason = "approval without the request's code refused"
		s.Audit(rec)
		return errorf(Forbidden, grants.KindCode,
			"no approval code: approving needs the code of the choice made, shown beside it only in the request's prompt or the daemon's log line")
	}
	c := s.queue.tryCode(req.ID, dec.Code)
	switch {
	case !c.ok && c.wrong >= MaxCodeTries:
		rec.Reason = fmt.Sprintf("wrong approval code (%d of %d): request denied", c.wrong, MaxCodeTries)
		s.Audit(rec)
		_, _ = s.finish(req.ID, wire.StateDenied, "deny", "", fmt.Sprintf("denied after %d wrong approval codes", MaxCodeTries))
		return errorf(Forbidden, grants.KindCode, "wrong approval code: %d wrong codes, so the request is now denied", MaxCodeTries)
	case !c.ok:
		rec.Reason = fmt.Sprintf("wrong approval code (%d of %d)", c.wrong, MaxCodeTries)
		s.Audit(rec)
		return errorf(Forbidden, grants.KindCode, "wrong approval code (%d tries left)", MaxCodeTries-c.wrong)
	}
	asked := presented(req, dec, scope, lasting)
	if !c.choice.Covers(asked.Scope, asked.Kind, lasting) {
		rec.Reason = fmt.Sprintf("approval wider than its code's choice refused: %s asked with the code of %s", asked.Key(), c.choice.Key())
		s.Audit(rec)
		return errorf(Forbidden, grants.KindCode, "request %s: that code approves %s only, not %s (each choice has its own code)",
			req.ID, c.choice.Flags(), asked.Flags())
	}
	return nil
}

// presented is the choice an approval asks for: its scope, the target
// it grants (no kind is the suggested one) and how long it lasts.
func presented(req wire.Request, dec wire.Decision, scope grants.Scope, lasting time.Duration) wire.Choice {
	c := wire.Choice{Scope: string(scope), Kind: dec.Kind}
	if c.Kind == "" {
		c.Kind = req.Suggested.Kind
	}
	if lasting > 0 {
		c.For = wire.FormatFor(lasting)
	}
	return c
}
