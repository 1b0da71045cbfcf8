package engine

import (
	"context"
	"errors"
	"slices"
	"time"

	"pathgrant/grants"
	"pathgrant/guard"
	"pathgrant/wire"
)

// check answers one request for a resolved session: evaluate, and on an
// eligible denial queue an approval, raised by by, and (interactive
// sessions only) wait for it up to wait_ms.
func (s *Engine) check(ctx context.Context, sess *session, req wire.CheckRequest, by raiser) (wire.Answer, *Error) {
	if req.Unmapped || req.OtherMCP {
		return s.unlisted(sess, req)
	}
	if (req.Command == "") == (req.Op == "" && req.Path == "") {
		return wire.Answer{}, errorf(BadRequest, "", "give either a command or an op and a path")
	}
	ans, d, err := s.evaluate(sess, req)
	if err != nil {
		return wire.Answer{}, err
	}
	if ans.Decision == guard.Allow {
		return ans, nil
	}
	if !ans.Eligible {
		s.refused(sess, req, ans)
		return ans, nil
	}
	wait := s.waitBudget(sess, req.WaitMS)
	o, why := s.offer(sess, req, d, wait, by)
	if why != "" {
		ans.Eligible, ans.Suggested, ans.Reason = false, nil, why
		return ans, nil
	}
	ans.Pending = o.req.ID
	if wait == 0 {
		ans.Reason = pendingReason(s.cfg.Home, ans, false)
		return ans, nil
	}
	return s.await(ctx, sess, req, ans, o.waiter, wait), nil
}

// await waits for the user's decision on ans.Pending. An approval answers
// this very call (the tool then runs once, as asked), and every other call
// waiting on the same request; anything else denies.
func (s *Engine) await(ctx context.Context, sess *session, req wire.CheckRequest, ans wire.Answer, w int, wait time.Duration) wire.Answer {
	decided, ok := s.waitDecision(ctx, ans.Pending, w, wait)
	switch {
	case !ok:
		ans.Reason = pendingReason(s.cfg.Home, ans, true)
		return ans
	case decided.State != wire.StateApproved:
		ans.Eligible, ans.Suggested = false, nil
		ans.Reason = s.notApprovedReason(sess, decided)
		return ans
	}
	again, _, err := s.reevaluate(sess, req, decided)
	if err != nil {
		ans.Reason = err.Msg
		return ans
	}
	again.Pending = ans.Pending
	return again
}

// notApprovedReason is what a call that waited on request r is told when
// r ended otherwise than approved: denied by the person (once, for the
// session, on the device), expired, or ended with its session or its
// command.
func (s *Engine) notApprovedReason(sess *session, r wire.Request) string {
	switch {
	case r.State == wire.StateEnded && r.Ended != "":
		return endedUndecidedReason(s.cfg.Home, r)
	case r.State == wire.StateEnded:
		return endedReason(sess)
	case r.State == wire.StateExpired:
		return "the request for " + accessWords(s.cfg.Home, r.Op, r.Path) + " expired without a decision: retry once to ask the person again"
	case r.Scope == string(grants.ScopeSession) || r.Scope == string(grants.ScopeDevice):
		return deniedReason(r)
	}
	return deniedOnceReason
}

// evaluate runs the guard for sess and, on allow, records the use of the
// grants that allowed it. A once grant spent by a concurrent request fails
// the use; the request is then evaluated again, without it.
func (s *Engine) evaluate(sess *session, req wire.CheckRequest) (wire.Answer, guard.Decision, *Error) {
	return s.evaluateWith(sess, req, nil)
}

// evaluateWith is evaluate with a decided once grant in hand (reevaluate):
// it may serve, and its use is not recorded again.
func (s *Engine) evaluateWith(sess *session, req wire.CheckRequest, extra *decidedGrant) (wire.Answer, guard.Decision, *Error) {
	view := s.cfg.Store.View(sess.ID).WithRequest(req.Tool, req.RequestID)
	var held guard.Grants = view
	if extra != nil {
		held = withDecided{Grants: view, extra: extra}
	}
	greq := guard.Request{Op: req.Op, Path: req.Path, Shell: req.Command, View: s.confinedView(req)}
	pol, err := s.compiled(sess)
	if err != nil {
		return wire.Answer{}, guard.Decision{}, errorf(Internal, "", "%v", err)
	}
	for attempt := 0; ; attempt++ {
		d, err := guard.Evaluate(pol, held, greq)
		if err != nil {
			return wire.Answer{}, d, errorf(BadRequest, "", "%v", err)
		}
		ids := grantIDs(d)
		if extra != nil {
			ids = slices.DeleteFunc(ids, func(id string) bool { return id == extra.g.ID })
		}
		if d.Verdict != guard.Allow || len(ids) == 0 {
			return s.answer(sess, req, d), d, nil
		}
		useErr := view.Use(ids...)
		if useErr == nil {
			s.publishUses(sess.ID, ids)
			return s.answer(sess, req, d), d, nil
		}
		if attempt > 0 || !errors.Is(useErr, grants.ErrEnded) && !errors.Is(useErr, grants.ErrIdentityChanged) {
			ans := s.answer(sess, req, d)
			ans.Decision, ans.Reason, ans.Grants = guard.Deny, "grant could not be used: "+useErr.Error(), nil
			return ans, d, nil
		}
	}
}

func grantIDs(d guard.Decision) []string {
	var ids []string
	for _, a := range d.Accesses {
		if a.Grant != "" {
			ids = append(ids, a.Grant)
		}
	}
	return ids
}

// answer builds the one structured answer from a decision: the denied
// access its reason names (guard.Decision.Blocking: the first that cannot
// be offered, else the first) names the path, op and rule.
func (s *Engine) answer(sess *session, req wire.CheckRequest, d guard.Decision) wire.Answer {
	ans := wire.Answer{
		Decision: d.Verdict, Session: sess.ID, Workflow: sess.Workflow, Execution: req.Execution,
		Tool: req.Tool, RequestID: req.RequestID, Reason: d.Reason, Eligible: d.Eligible, Suggested: d.Suggested,
		Grants: grantIDs(d),
	}
	if a, ok := d.Blocking(); ok {
		ans.Op, ans.Path, ans.Rule = a.Op, a.Path, a.Rule
	} else if d.Verdict == guard.Allow && len(d.Accesses) > 0 {
		a := d.Accesses[0]
		ans.Op, ans.Path, ans.Rule = a.Op, a.Path, a.Rule
	}
	if d.Verdict == guard.Deny && ans.Rule == "" {
		ans.Rule = guard.RuleUnproven
	}
	return ans
}

func (s *Engine) publishUses(session string, ids []string) {
	for _, id := range ids {
		s.hub.publish(wire.Event{Type: wire.EventGrantUsed, Time: s.now(), Session: session, GrantID: id})
	}
}

// Check answers one check for a resolved call and remembers its caller as
// the session's agent. A shell command's answer says how it is to run
// (ExecInfo), with the capability its rewritten command presents when the
// caller asked for one; a text the guard could not judge, sent to run
// through the one door anyway (ExecAnyway), is a denial the kernel
// confines rather than a refusal.
func (s *Engine) Check(ctx context.Context, c Call, req wire.CheckRequest) (wire.Answer, *Error) {
	if req.Op == guard.OpConnect {
		return wire.Answer{}, errorf(BadRequest, "", "a connection is asked by pathgrant's proxy alone, never by a check")
	}
	s.markAgent(c.caller, c.sess.ID)
	ans, err := s.check(ctx, c.sess, req, "")
	if err != nil && err.Code == BadRequest && req.ExecAnyway && req.Command != "" {
		ans, err = wire.Answer{Decision: guard.Deny, Reason: err.Msg}, nil
	}
	if err != nil {
		return ans, err
	}
	if req.Command != "" {
		ans.Exec = s.execInfo(c.sess, req, ans)
		if ans.Decision == guard.Allow && !ans.Exec.Confine {
			ans.Reason += "; " + unconfinedWhy(ans.Exec.Level)
		}
	}
	return ans, nil
}
