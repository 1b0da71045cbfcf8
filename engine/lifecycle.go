package engine

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"

	"pathgrant/grants"
	"pathgrant/wire"
)

// procWatcherFor picks how the daemon learns that bound processes exit:
// the given ProcAlive, polled, when a test supplies one; never, when the
// processes are made up (Lineage set without ProcAlive); else the kernel.
func procWatcherFor(cfg Config) procWatcher {
	switch {
	case cfg.ProcAlive != nil:
		return pollingProcs{cfg.ProcAlive}
	case cfg.Lineage != nil:
		return immortalProcs{}
	}
	return kernelProcs{}
}

// pollingProcs watches through an alive function, every procPollEvery.
type pollingProcs struct{ isAlive func(Proc) bool }

func (w pollingProcs) alive(p Proc) bool { return w.isAlive(p) }

func (w pollingProcs) wait(ctx context.Context, p Proc) bool { return pollProc(ctx, p, w.isAlive) }

// watchSession ends sess when the process it is bound to exits. The watch
// stops when the session ends some other way, or the daemon stops.
func (s *Engine) watchSession(sess *session) {
	p := sess.bound()
	if p == (Proc{}) {
		return
	}
	ctx, stop := context.WithCancel(s.ctx)
	s.sessions.watching(sess.ID, stop)
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		if s.procs.wait(ctx, p) && ctx.Err() == nil {
			if _, err := s.endSession(sess, grants.EndReasonAgentExited); err != nil {
				s.log.Error("end session of exited process", "session", sess.ID, "pid", p.PID, "err", err)
			}
		}
	}()
}

// endSession ends sess, after the checks it owes after its commands ran
// (afterrun.go), and, first, every session under it: their session
// and once grants end (device grants stay), their pending approval
// requests end (a waiting check is answered deny, the prompt closes), and
// each step is audited and published. Decisions are held off meanwhile,
// so no grant can be made in a session that is ending. It returns how many
// grants of sess itself ended.
func (s *Engine) endSession(sess *session, why grants.EndReason) (int, error) {
	if err := s.settleChecks(sess.ID); err != nil { // the end waits for them; a failure stays owed, and said
		s.log.Error("a check after a command of an ending session did not finish", "session", sess.ID, "err", err)
	}
	s.decideMu.Lock()
	defer s.decideMu.Unlock()
	return s.endLocked(sess, why)
}

func (s *Engine) endLocked(sess *session, why grants.EndReason) (int, error) {
	for _, child := range s.sessions.children(sess.ID) {
		if _, err := s.endLocked(child, grants.EndReasonParentEnded); err != nil {
			s.log.Error("end child session", "session", child.ID, "parent", sess.ID, "err", err)
		}
	}
	first := s.sessions.endFor(sess.ID, why)
	ended, err := s.cfg.Store.EndSessionFor(sess.ID, why)
	for _, g := range ended {
		s.hub.publish(wire.Event{Type: wire.EventGrantEnded, Time: s.now(), Session: sess.ID, GrantID: g.ID})
	}
	s.endRequests(sess.ID, why)
	s.forgetSession(sess.ID)
	if first {
		s.log.Info("session ended", "session", sess.ID, "agent", sess.Agent, "reason", string(why), "grants_ended", len(ended))
		s.Audit(grants.Record{Kind: grants.KindExpire, Session: sess.ID, Workflow: sess.Workflow, Agent: sess.Agent,
			Reason: "session ended (" + string(why) + ")"})
		s.hub.publish(wire.Event{Type: wire.EventSessionEnded, Time: s.now(), Session: sess.ID})
	}
	if err != nil {
		return len(ended), fmt.Errorf("end session %s: %w", sess.ID, err)
	}
	return len(ended), nil
}

// endRequests ends the session's pending approval requests as denials.
// Called with decideMu held.
func (s *Engine) endRequests(session string, why grants.EndReason) {
	for _, r := range s.queue.pending() {
		if r.Session != session {
			continue
		}
		if done, err := s.queue.decide(r.ID, wire.StateEnded, "deny", ""); err == nil {
			s.requestEnded(done, "session ended ("+string(why)+"): request ended")
		}
	}
}

// endedReason is what a check waiting on a request of an ended session is
// told.
func endedReason(sess *session) string {
	why := sess.reason()
	if why == "" {
		why = grants.EndReasonSessionEnd
	}
	return "the session ended (" + string(why) + "): denied"
}

// bindLauncher makes a session registered with end_with_launcher end with
// the process that registered it (`pathgrant run`): it must be
// identifiable, or the registration is refused.
func bindLauncher(sess *session, req wire.SessionRequest, lineage *Lineage) *Error {
	if !req.EndWithLauncher {
		return nil
	}
	p := peerProc(lineage)
	if p == (Proc{}) {
		return errorf(Forbidden, grants.KindForged, "cannot identify the launcher process to end the session with")
	}
	sess.launcher = p
	return nil
}

// sessionSpec is what the store keeps of a session for a restarted daemon
// to adopt it: never its environment, and of its token only the hash.
type sessionSpec struct {
	Kind         string   `json:"kind"`
	Cwd          string   `json:"cwd"`
	Workspace    []string `json:"workspace"`
	ReadOnly     []string `json:"read_only,omitempty"`
	BlockedWrite []string `json:"blocked_write,omitempty"`
	TokenHash    string   `json:"token_hash,omitempty"`
	// Agent: the bound process is the agent of a hook-only session (else
	// the launcher of a token session).
	Agent bool `json:"agent,omitempty"`
}

// record is sess as the store keeps it.
func (sess *session) record() grants.Session {
	rec := grants.Session{ID: sess.ID, Workflow: sess.Workflow, Agent: sess.Agent, Started: sess.Started, Expires: sess.Expires}
	if sess.Parent != nil {
		rec.Parent = sess.Parent.ID
	}
	if p := sess.bound(); p != (Proc{}) {
		rec.Process = &grants.Process{PID: p.PID, Start: p.Start}
	}
	spec := sessionSpec{Kind: sess.Kind, Cwd: sess.roots.Cwd, Workspace: sess.roots.Workspace, ReadOnly: sess.roots.ReadOnly,
		BlockedWrite: sess.roots.BlockedWrite, Agent: sess.agent != (Proc{})}
	if sess.Parent != nil { // the parent's blocked-write paths are added back when adopted
		spec.BlockedWrite = slices.DeleteFunc(slices.Clone(spec.BlockedWrite), func(p string) bool {
			return slices.Contains(sess.Parent.roots.BlockedWrite, p)
		})
	}
	if sess.tokenHash != ([32]byte{}) {
		spec.TokenHash = hex.EncodeToString(sess.tokenHash[:])
	}
	rec.Spec, _ = json.Marshal(spec) // a struct of strings always marshals
	return rec
}

// adoptSessions runs once at start: every live session in the store whose
// bound process is gone ends ("agent exited"); one whose process still
// runs (same pid, same start time) is taken back, with its binding, and
// watched again. Parents come before their children, and a child whose
// parent did not come back ends with it. Sessions the store keeps no spec
// or process for are left as they are.
func (s *Engine) adoptSessions() {
	live, err := s.cfg.Store.LiveSessions()
	if err != nil {
		s.log.Error("adopt sessions", "err", err)
		return
	}
	slices.SortFunc(live, func(a, b grants.Session) int { return a.Started.Compare(b.Started) })
	for _, rec := range live {
		if rec.Process == nil && len(rec.Spec) == 0 {
			continue
		}
		why, err := s.adopt(rec)
		if err == nil {
			continue
		}
		s.log.Info("session not adopted", "session", rec.ID, "reason", string(why), "detail", err.Error())
		if _, err := s.cfg.Store.EndSessionFor(rec.ID, why); err != nil {
			s.log.Error("end session at start", "session", rec.ID, "err", err)
			continue
		}
		s.Audit(grants.Record{Kind: grants.KindExpire, Session: rec.ID, Workflow: rec.Workflow, Agent: rec.Agent,
			Reason: "session ended (" + string(why) + ") while the daemon was stopped"})
	}
}

// adopt takes one stored session back, or says why it ends instead.
func (s *Engine) adopt(rec grants.Session) (grants.EndReason, error) {
	if rec.Process != nil && !s.procs.alive(Proc{PID: rec.Process.PID, Start: rec.Process.Start}) {
		return grants.EndReasonAgentExited, fmt.Errorf("process %d is gone", rec.Process.PID)
	}
	var parent *session
	if rec.Parent != "" {
		if parent = s.sessions.get(rec.Parent); parent == nil || !parent.Live(s.now()) {
			return grants.EndReasonParentEnded, fmt.Errorf("parent %s did not come back", rec.Parent)
		}
	}
	var spec sessionSpec
	if err := json.Unmarshal(rec.Spec, &spec); err != nil {
		return grants.EndReasonSessionEnd, fmt.Errorf("spec: %w", err)
	}
	sess, err := s.newSession(rec.ID, wire.SessionRequest{Agent: rec.Agent, Workflow: rec.Workflow, Kind: spec.Kind, Cwd: spec.Cwd,
		Workspace: spec.Workspace, ReadOnly: spec.ReadOnly, BlockedWrite: spec.BlockedWrite}, parent)
	if err != nil {
		return grants.EndReasonSessionEnd, fmt.Errorf("rebuild: %w", err)
	}
	sess.Expires = rec.Expires
	sess.Started = rec.Started // its own start, never the daemon's restart
	if err := restoreBinding(sess, rec, spec); err != nil {
		return grants.EndReasonSessionEnd, err
	}
	if err := s.sessions.add(sess); err != nil {
		return grants.EndReasonSessionEnd, err
	}
	s.watchSession(sess)
	s.log.Info("session adopted", "session", sess.ID, "agent", sess.Agent)
	return "", nil
}

// restoreBinding gives an adopted session back its token hash and the
// process it ends with; a session left with neither could be claimed by
// anyone, so it is not adopted.
func restoreBinding(sess *session, rec grants.Session, spec sessionSpec) error {
	if spec.TokenHash != "" {
		h, err := hex.DecodeString(spec.TokenHash)
		if err != nil || len(h) != len(sess.tokenHash) {
			return fmt.Errorf("token hash unreadable")
		}
		copy(sess.tokenHash[:], h)
	}
	if rec.Process != nil {
		p := Proc{PID: rec.Process.PID, Start: rec.Process.Start}
		if spec.Agent {
			sess.agent = p
		} else {
			sess.launcher = p
		}
	}
	if sess.tokenHash == ([32]byte{}) && sess.agent == (Proc{}) {
		return fmt.Errorf("no token and no agent process to bind it to")
	}
	return nil
}

// EndSession ends the call's session at its own request: the launcher with
// its token, or a hook-only client's session-end hook from under the
// agent process the session is bound to (the resolver refuses any other
// caller). It returns how many grants ended with it.
func (s *Engine) EndSession(c Call) (int, *Error) {
	ended, err := s.endSession(c.sess, grants.EndReasonSessionEnd)
	if err != nil {
		return 0, errorf(Internal, "", "end session: %v", err)
	}
	return ended, nil
}
