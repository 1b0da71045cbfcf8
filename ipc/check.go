package ipc

import (
	"context"
	"errors"
	"net/http"
	"time"

	"pathgrant/grants"
	"pathgrant/guard"
	"pathgrant/wire"
)

// retryHint is what an agent is told when the user has not decided yet.
const retryHint = "approval pending: retry after approving"

func (s *Server) handleCheck(w http.ResponseWriter, r *http.Request, c sessionCall) {
	req := &c.body.(*checkBody).CheckRequest
	s.markAgent(c.lineage, c.sess.ID)
	ans, aerr := s.check(r.Context(), c.sess, *req)
	if aerr != nil && aerr.status == http.StatusBadRequest && req.ExecAnyway && req.Command != "" {
		// The guard could not judge the text; the kernel confines it.
		ans, aerr = wire.Answer{Decision: guard.Deny, Reason: aerr.msg}, nil
	}
	if aerr != nil {
		writeError(w, aerr)
		return
	}
	if req.Command != "" {
		ans.Exec = s.execInfo(c.sess, *req, ans)
		if ans.Decision == guard.Allow && !ans.Exec.Confine {
			ans.Reason += "; " + unconfinedWhy(ans.Exec.Level)
		}
	}
	writeJSON(w, http.StatusOK, ans)
}

// check answers one request for a resolved session: evaluate, and on an
// eligible denial queue an approval and (interactive sessions only) wait
// for it up to wait_ms.
func (s *Server) check(ctx context.Context, sess *session, req wire.CheckRequest) (wire.Answer, *apiError) {
	if (req.Command == "") == (req.Op == "" && req.Path == "") {
		return wire.Answer{}, errorf(http.StatusBadRequest, "", "give either a command or an op and a path")
	}
	ans, d, err := s.evaluate(sess, req)
	if err != nil {
		return wire.Answer{}, err
	}
	if ans.Decision == guard.Allow || !ans.Eligible {
		return ans, nil
	}
	pending, ok := s.offer(sess, req, d)
	if !ok {
		ans.Eligible, ans.Suggested = false, nil
		ans.Reason = "prompts are paused or too many requests are pending: " + ans.Reason
		return ans, nil
	}
	ans.Pending = pending.ID
	if sess.Kind != wire.KindInteractive || req.WaitMS <= 0 {
		ans.Reason = retryHint + " (" + ans.Reason + ")"
		return ans, nil
	}
	return s.await(ctx, sess, req, ans), nil
}

// await waits for the user's decision on ans.Pending. An approval answers
// this very call (the tool then runs once, as asked); anything else denies.
func (s *Server) await(ctx context.Context, sess *session, req wire.CheckRequest, ans wire.Answer) wire.Answer {
	wait := min(time.Duration(req.WaitMS)*time.Millisecond, s.cfg.MaxWait)
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	decided, ok := s.queue.wait(ctx, ans.Pending)
	switch {
	case !ok:
		ans.Reason = retryHint
		return ans
	case decided.State == wire.StateEnded:
		ans.Eligible, ans.Suggested = false, nil
		ans.Reason = endedReason(sess)
		return ans
	case decided.State != wire.StateApproved:
		ans.Eligible, ans.Suggested = false, nil
		ans.Reason = "denied by the user"
		return ans
	}
	again, _, err := s.evaluate(sess, req)
	if err != nil {
		ans.Reason = err.msg
		return ans
	}
	again.Pending = ans.Pending
	return again
}

// evaluate runs the guard for sess and, on allow, records the use of the
// grants that allowed it. A once grant spent by a concurrent request fails
// the use; the request is then evaluated again, without it.
func (s *Server) evaluate(sess *session, req wire.CheckRequest) (wire.Answer, guard.Decision, *apiError) {
	view := s.cfg.Store.View(sess.ID).WithRequest(req.Tool, req.RequestID)
	greq := guard.Request{Op: req.Op, Path: req.Path, Shell: req.Command}
	for attempt := 0; ; attempt++ {
		d, err := guard.Evaluate(sess.policy, view, greq)
		if err != nil {
			return wire.Answer{}, d, errorf(http.StatusBadRequest, "", "%v", err)
		}
		ids := grantIDs(d)
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

// answer builds the one structured answer from a decision: the first
// denied access names the path, op and rule.
func (s *Server) answer(sess *session, req wire.CheckRequest, d guard.Decision) wire.Answer {
	ans := wire.Answer{
		Decision: d.Verdict, Session: sess.ID, Workflow: sess.Workflow, Execution: req.Execution,
		Tool: req.Tool, RequestID: req.RequestID, Reason: d.Reason, Eligible: d.Eligible, Suggested: d.Suggested,
		Grants: grantIDs(d),
	}
	for _, a := range d.Accesses {
		if !a.Allowed || d.Verdict == guard.Allow {
			ans.Op, ans.Path, ans.Rule = a.Op, a.Path, a.Rule
			break
		}
	}
	if d.Verdict == guard.Deny && ans.Rule == "" {
		ans.Rule = guard.RuleUnproven
	}
	return ans
}

func (s *Server) publishUses(session string, ids []string) {
	for _, id := range ids {
		s.hub.publish(wire.Event{Type: wire.EventGrantUsed, Time: s.now(), Session: session, GrantID: id})
	}
}
