package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"pathgrant/grants"
	"pathgrant/guard"
	"pathgrant/tools"
	"pathgrant/wire"
)

// RunTool is the in-process form of the tool routes, for the app: it runs
// tool for the live session sessionID, waiting for the user on an
// eligible denial of an interactive session as long as ctx allows (at
// most Config.MaxWait).
func (s *Engine) RunTool(ctx context.Context, sessionID, tool string, args json.RawMessage) (tools.Result, error) {
	sess := s.sessions.get(sessionID)
	switch {
	case sessionID == "" || sess == nil:
		return tools.Result{}, fmt.Errorf("run tool %s: unknown session %q", tool, sessionID)
	case !s.chainLive(sess):
		return tools.Result{}, fmt.Errorf("run tool %s: session %s has ended or expired", tool, sessionID)
	}
	req := wire.ToolRequest{Args: args}
	if dl, ok := ctx.Deadline(); ok {
		req.WaitMS = int(time.Until(dl) / time.Millisecond)
	}
	res, err := s.runTool(ctx, sess, tool, req)
	if err != nil {
		return res, fmt.Errorf("run tool %s: %w", tool, err)
	}
	return res, nil
}

// runTool checks and runs one call: (1) evaluate; (2) on an eligible
// denial raise the approval request and, for an interactive session asked
// to wait, wait for the user; (3) after an approval evaluate again and run
// if now allowed. A call that was not allowed by the time it returns is
// never run later: the agent is told to retry after approving.
func (s *Engine) runTool(ctx context.Context, sess *session, tool string, req wire.ToolRequest) (tools.Result, *Error) {
	ts, aerr := s.toolSession(sess)
	if aerr != nil {
		return tools.Result{}, aerr
	}
	p, err := ts.Prepare(tools.Call{Tool: tool, Args: req.Args, RequestID: req.RequestID})
	if err != nil {
		return tools.Result{}, toolError(err)
	}
	creq := checkFor(p, tool, req)
	ans, d, aerr := s.evaluate(sess, creq)
	if aerr != nil {
		return tools.Result{}, aerr
	}
	if ans.Decision == guard.Allow {
		return p.Execute(ctx, d), nil
	}
	if !ans.Eligible {
		s.refused(sess, creq, ans)
		return denial(p, d, ans), nil
	}
	wait := s.waitBudget(sess, req.WaitMS)
	o, why := s.offer(sess, creq, d, wait, "")
	if why != "" {
		ans.Eligible, ans.Suggested, ans.Reason = false, nil, why
		return denial(p, d, ans), nil
	}
	if wait == 0 {
		ans.Reason = pendingReason(s.cfg.Home, ans, false)
		return denial(p, d, ans).Pending(o.req.ID), nil
	}
	return s.awaitTool(ctx, sess, p, creq, ans, d, o, wait), nil
}

// awaitTool waits for the user's decision on the call's request. An
// approval runs this very call after a fresh evaluation; anything else
// denies it.
func (s *Engine) awaitTool(ctx context.Context, sess *session, p *tools.Prepared, creq wire.CheckRequest, ans wire.Answer, d guard.Decision, o offered, wait time.Duration) tools.Result {
	decided, ok := s.waitDecision(ctx, o.req.ID, o.waiter, wait)
	switch {
	case !ok:
		ans.Reason = pendingReason(s.cfg.Home, ans, true)
		return denial(p, d, ans).Pending(o.req.ID)
	case decided.State != wire.StateApproved:
		ans.Eligible, ans.Suggested, ans.Reason = false, nil, s.notApprovedReason(sess, decided)
		return denial(p, d, ans)
	}
	again, d2, aerr := s.reevaluate(sess, creq, decided)
	if aerr != nil {
		ans.Eligible, ans.Suggested, ans.Reason = false, nil, aerr.Msg
		return denial(p, d, ans)
	}
	if again.Decision != guard.Allow {
		return denial(p, d2, again)
	}
	return p.Execute(ctx, d2)
}

// checkFor is the check a tool call amounts to, so approvals, audit and
// events show it like any other check of the session.
func checkFor(p *tools.Prepared, tool string, req wire.ToolRequest) wire.CheckRequest {
	g := p.Request()
	return wire.CheckRequest{Op: g.Op, Path: g.Path, Command: g.Shell, Tool: tool, RequestID: req.RequestID, WaitMS: req.WaitMS}
}

// denial is the structured denial for the daemon's answer: its verdict
// and reason win over the guard's (a grant that could not be used, paused
// prompts, the user's deny).
func denial(p *tools.Prepared, d guard.Decision, ans wire.Answer) tools.Result {
	d.Verdict, d.Reason, d.Eligible, d.Suggested = guard.Deny, ans.Reason, ans.Eligible, ans.Suggested
	return p.Denied(d)
}

// toolError maps a tool package error to the API's: the call's own
// mistakes are 400, anything else 500.
func toolError(err error) *Error {
	if errors.Is(err, tools.ErrBadCall) {
		return errorf(BadRequest, "", "%v", err)
	}
	return errorf(Internal, "", "%v", err)
}

// toolSession builds the one session context a call runs under, from the
// resolved session and nothing else.
func (s *Engine) toolSession(sess *session) (*tools.Session, *Error) {
	usable, err := s.usableGrants(sess.ID)
	if err != nil {
		return nil, errorf(Internal, "", "list grants: %v", err)
	}
	compiled, err := s.compiled(sess)
	if err != nil {
		return nil, errorf(Internal, "", "%v", err)
	}
	return &tools.Session{
		ID: sess.ID, Workflow: sess.Workflow, Agent: sess.Agent, Cwd: sess.Cwd, Env: sess.Env, Home: s.cfg.Home,
		Policy:   guard.Policy{SessionPolicy: sess.roots, DevicePolicy: s.devicePolicy(sess.roots.Workspace)},
		Compiled: compiled, Grants: s.cfg.Store.View(sess.ID), Usable: usable, Owner: sess.ID,
		Confiner: s.toolConfiner(sess), Audit: s.auditTool,
	}, nil
}

// auditTool records a tool call: one that ran as a tool record (the
// access it was allowed on and whether it failed), a denial as a deny (an
// eligible one is recorded by offer when its request is raised). A shell
// command's text is not recorded (the audit log holds no command text: it
// may carry secrets); its first access is.
func (s *Engine) auditTool(ev tools.Event) {
	if ev.Decision == guard.Allow {
		s.Audit(grants.Record{Kind: grants.KindTool, Session: ev.Session, Workflow: ev.Workflow, Agent: ev.Agent,
			Tool: ev.Tool, RequestID: ev.RequestID, Op: ev.Op, Path: ev.Path, Reason: toolOutcome(ev)})
		return
	}
	if ev.Eligible {
		return
	}
	s.Audit(grants.Record{Kind: grants.KindDeny, Session: ev.Session, Workflow: ev.Workflow, Agent: ev.Agent,
		Tool: ev.Tool, RequestID: ev.RequestID, Op: ev.Op, Path: ev.Path, Reason: ev.Reason})
}

// toolOutcome is a tool record's reason: allowed, and how the call ended.
func toolOutcome(ev tools.Event) string {
	if ev.Err != "" {
		return "allowed; failed: " + ev.Err
	}
	return "allowed; ran"
}

// agentSession is the session of the agent process the peer runs under:
// the hook-only session its hooks registered, bound to that process. The
// MCP bridge is a child of the agent just as the hooks are, so its calls
// land in the same session without knowing the client's own session id.
// No such session is 404; several (one agent process, several client
// sessions) is a conflict, refused rather than one picked.
func (s *Engine) agentSession(lineage *Lineage) (*session, *Error) {
	chain := lineage.chain()
	if len(chain) < 2 {
		return nil, errorf(Forbidden, grants.KindForged, "cannot identify the agent process behind the call")
	}
	agent := chain[len(chain)-1]
	var found []*session
	s.sessions.mu.RLock()
	for _, sess := range s.sessions.sessions {
		if sess.tokenHash == ([32]byte{}) && sess.agent == agent && s.chainLive(sess) {
			found = append(found, sess)
		}
	}
	s.sessions.mu.RUnlock()
	switch len(found) {
	case 0:
		return nil, errorf(NotFound, grants.KindStale,
			"no session is bound to agent process %d yet: its hooks register one on their first check (or run the agent under pathgrant run)", agent.PID)
	case 1:
		return found[0], nil
	}
	return nil, errorf(Conflict, grants.KindConflict,
		"%d sessions are bound to agent process %d: refusing to pick one", len(found), agent.PID)
}

// Tool runs one tool call for the call's session: the same session is the
// one the guard judges with, whose grants are used, whose approval is
// raised, and whose cwd and environment a command runs in. The caller's
// process lineage is remembered as an agent's, so it can never approve
// its own requests.
func (s *Engine) Tool(ctx context.Context, c Call, tool string, req wire.ToolRequest) (tools.Result, *Error) {
	s.markAgent(c.caller, c.sess.ID)
	return s.runTool(ctx, c.sess, tool, req)
}
