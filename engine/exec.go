package engine

import (
	"context"
	"fmt"
	"pathgrant/grants"
	"pathgrant/sandbox"
	"runtime"
	"strings"

	"pathgrant/devicepolicy"
	"pathgrant/guard"
	"pathgrant/sandbox/launch"
	"pathgrant/wire"
)

// Launcher prepares the sandbox a hook's rewritten command runs in, from
// the session's policy (with the grants the hook's check used), the
// device policy file in force and what the front end sent. The daemon
// prepares it, not the front end, because the daemon is already running:
// a fresh process would spend milliseconds of start-up and cold caches on
// it before every agent shell command.
type Launcher interface {
	Launch(pol wire.Policy, device devicepolicy.Policy, req wire.ExecRequest) (sandbox.Launch, error)
}

// explainRefusals is what to tell the agent about the refused paths
// lines name (of a confined command's stderr), one line per path: each
// path outside its view (outside, when known; at most
// launch.MaxReported) is checked as a read for the session, which raises
// an approval request where one can be given. Every door's refusals are
// explained here: over PathReport for a front end process, in process for
// the daemon's own tool calls.
func (s *Engine) explainRefusals(ctx context.Context, sess *session, lines []string, outside func([]string) []string) []string {
	if len(lines) > launch.MaxRefusalLines {
		lines = lines[:launch.MaxRefusalLines]
	}
	paths := launch.RefusedPaths(lines)
	if outside != nil {
		paths = outside(paths)
	}
	out := privacyRefusals(runtime.GOOS, s.cfg.Home, lines, outside)
	for _, p := range paths[:min(len(paths), launch.MaxReported)] {
		ans, aerr := s.check(ctx, sess, wire.CheckRequest{Op: guard.OpRead, Path: p, Tool: "exec (refused path)"}, "")
		var err error
		if aerr != nil {
			err = aerr
		}
		out = append(out, refusalLine(p, ans, err))
	}
	return out
}

// refusalLine is what the agent is told about one path its confined
// command was refused: whether reading it can be approved, and the
// request raised for it.
func refusalLine(p string, ans wire.Answer, err error) string {
	const outside = "pathgrant: %s is outside this session's permissions"
	switch {
	case err != nil:
		return fmt.Sprintf(outside+" (could not ask whether it can be approved: %s)", p, oneLine(err.Error()))
	case ans.Decision == guard.Allow:
		return fmt.Sprintf("pathgrant: %s may be read now (approved since the command started): retry", p)
	case ans.Eligible && ans.Pending != "":
		return fmt.Sprintf(outside+"; reading it needs the person's approval: they were asked "+whereAsked+
			" (request %s); wait for them, then run the command again", p, ans.Pending)
	case ans.Eligible:
		return fmt.Sprintf(outside+"; reading it needs the person's approval, but nobody was asked: %s", p, oneLine(ans.Reason))
	}
	return fmt.Sprintf(outside+" and cannot be approved", p)
}

// oneLine folds s onto one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// Exec prepares the sandbox of the command the call's exec capability was
// issued for, once the session's earlier checks are done; owes the check
// after it, which runs when the calling front end reports the end or is
// gone; and issues the report ticket the front end reports with.
func (s *Engine) Exec(c Call, req wire.ExecRequest) (wire.Prepared, *Error) {
	if s.cfg.Launcher == nil {
		return wire.Prepared{}, errorf(Unavailable, "", "this daemon does not prepare sandboxes")
	}
	if c.cap == nil || c.cap.kind != CapExec {
		return wire.Prepared{}, errorf(Forbidden, grants.KindForged, "preparing a sandbox takes an exec capability")
	}
	holder, ok := c.caller.Peer()
	if !ok {
		return wire.Prepared{}, errorf(Forbidden, "", "preparing a sandbox takes a front end process whose end the daemon can see")
	}
	if aerr := s.checkBefore(c.sess.ID); aerr != nil {
		return wire.Prepared{}, aerr
	}
	pol, aerr := s.sessionPolicy(c.sess)
	if aerr != nil {
		return wire.Prepared{}, aerr
	}
	pol.Used = c.cap.used
	s.views.RLock() // until the check is owed (placeholders.go)
	defer s.views.RUnlock()
	l, err := s.cfg.Launcher.Launch(pol, s.deviceFile(), req)
	if err != nil {
		return wire.Prepared{}, errorf(Conflict, "", "%v", err)
	}
	if l.Prepared.Level == wire.LevelLandlock {
		if aerr := s.recordGroup(c); aerr != nil {
			return wire.Prepared{}, aerr
		}
	}
	l.Prepared.Session = c.sess.ID
	// served before the check is owed: the check's watch of the front
	// end, which may be gone already, is what unserves it
	by := raiser(fmt.Sprintf("front end %d started %d", holder.PID, holder.Start))
	if aerr := s.serve(c.sess, l, holder, c.cap.denied, by, c.cap.clock); aerr != nil {
		return wire.Prepared{}, aerr
	}
	check, aerr := s.planCheck(c.sess.ID, l.Prepared, holder, servedToken(l))
	if aerr != nil {
		s.unserve(servedToken(l))
		return wire.Prepared{}, aerr
	}
	if check == "" {
		s.unserveWhenGone(servedToken(l), holder) // no owed check watches its front end
	}
	l.Prepared.Ticket = s.caps.issue(capEntry{kind: CapReport, session: c.sess.ID, command: c.cap.command, outside: l.Outside,
		check: check, served: servedToken(l), holder: holder, expires: s.now().Add(ReportTTL)}, s.now())
	if h := l.Prepared.Hold; h != nil {
		h.Ticket = s.caps.issue(capEntry{kind: CapHold, session: c.sess.ID, command: c.cap.command, roots: h.Roots,
			denied: c.cap.denied, clock: c.cap.clock, holder: holder, expires: s.now().Add(ReportTTL)}, s.now())
	}
	if n := l.Prepared.Net; n != nil {
		n.Ticket = s.caps.issue(capEntry{kind: CapNet, session: c.sess.ID, command: c.cap.command, check: check,
			holder: holder, expires: s.now().Add(CapabilityTTL)}, s.now())
	}
	return l.Prepared, nil
}

// ExplainReport is the front end's report that its command ended: the
// daemon runs the command's owed check (package afterrun) and says what
// it neutralised, then explains the refusals a failed command's stderr
// names: each path outside its view (at most launch.MaxReported) is
// checked as a read for the session, which raises an approval request
// where one can be given, and the answer says so, one line per path. It
// asks nothing the agent could not ask through its hook.
func (s *Engine) ExplainReport(ctx context.Context, c Call, lines []string) (wire.Report, *Error) {
	if c.cap == nil || c.cap.kind != CapReport {
		return wire.Report{}, errorf(Forbidden, grants.KindForged, "a report takes a report ticket")
	}
	// Only the front end the command ran under says it ended: a report
	// from another process, before the end, would have the check run
	// before the command planted anything.
	if peer, ok := c.caller.Peer(); !ok || peer != c.cap.holder {
		return wire.Report{}, errorf(Forbidden, grants.KindForged, "a report ticket is presented by the front end it was issued to")
	}
	out, refused := s.unserve(c.cap.served)
	out = append(out, s.finishCheck(c.cap.check, false)...)
	if lines = launch.Unsaid(lines, refused); len(lines) > 0 {
		out = append(out, s.explainRefusals(ctx, c.sess, lines, c.cap.outside)...)
	}
	return wire.Report{Lines: out}, nil
}

// recordGroup records the process group of the front end that asked to
// prepare a Landlock-only command as the session's (groups.go): the
// command runs in it and can never leave it. A front end whose group
// cannot be read gets no sandbox: what its command detached would
// otherwise count as nobody's.
func (s *Engine) recordGroup(c Call) *Error {
	holder, ok := c.caller.Peer()
	if !ok {
		return errorf(Forbidden, "", "cannot read the process of the front end, so what its command starts could not be told for the agent's: not preparing it")
	}
	group, err := procGroup(holder)
	if err != nil {
		return errorf(Forbidden, "", "cannot read the front end's process group (%v), so what its command starts could not be told for the agent's: not preparing it", err)
	}
	s.agents.addGroup(group, c.sess.ID, c.sess.roots)
	return nil
}
