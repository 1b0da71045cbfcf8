package engine

import (
	"pathgrant/grants"
	"pathgrant/guard"
	"pathgrant/wire"
)

// rememberDenial remembers the person's denial of r's access: for r's
// session (and the agent process it is bound to), or on this device. It
// is written through to the store, so it outlives a daemon restart; a
// store that fails to keep it is logged and the denial still holds in
// memory (closed: it denies until this daemon stops).
func (s *Engine) rememberDenial(r wire.Request, device bool) wire.Denial {
	var agent Proc
	if sess := s.sessions.get(r.Session); sess != nil {
		agent = sess.agent
	}
	den := wire.Denial{ID: newID(), Session: r.Session, Agent: r.Agent, Cwd: r.Cwd, SessionStarted: r.SessionStarted,
		Op: r.Op, Path: r.Path, Request: r.ID, Created: s.now(), Device: device}
	kept, isNew, dropped := s.denials.add(den, agent)
	s.unstoreDenials(dropped...)
	if !isNew {
		return kept
	}
	rec := grants.Denial{Denial: kept}
	if agent != (Proc{}) {
		rec.Process = &grants.Process{PID: agent.PID, Start: agent.Start}
	}
	if err := s.cfg.Store.PutDenial(rec); err != nil {
		s.log.Error("store a remembered denial: it holds until the daemon stops", "denial", kept.ID, "err", err)
	}
	return kept
}

// loadDenials runs once at start, after the sessions were adopted: the
// device denials come back, and the session denials of every session that
// came back, bound to its agent process as before. A stored session
// denial whose session did not come back is deleted (its session ended;
// the store has normally done so already).
func (s *Engine) loadDenials() {
	stored, err := s.cfg.Store.Denials()
	if err != nil {
		s.log.Error("load remembered denials", "err", err)
		return
	}
	for _, d := range stored {
		if !d.Device {
			if sess := s.sessions.get(d.Session); sess == nil || !sess.Live(s.now()) {
				s.unstoreDenials(d.ID)
				continue
			}
		}
		var agent Proc
		if d.Process != nil {
			agent = Proc{PID: d.Process.PID, Start: d.Process.Start}
		}
		_, _, dropped := s.denials.add(d.Denial, agent)
		s.unstoreDenials(dropped...)
	}
}

// liftCovered is the rule between grants and denials: the person's later
// decision wins. A grant the person makes lifts the denials it covers
// (the same op, on its path or, for a folder, under it): a device grant
// lifts device denials and every session's; a session or once grant lifts
// only its own session's denials, never a device denial (that one still
// holds for every other session; in the grant's own session the grant
// allows, as grants are looked up before any denial is).
func (s *Engine) liftCovered(g grants.Grant) {
	covered := func(d wire.Denial) bool {
		if d.Op != g.Op || !grantReaches(g, d.Path) {
			return false
		}
		if g.Scope == grants.ScopeDevice {
			return true
		}
		return !d.Device && d.Session == g.Session
	}
	for _, d := range s.denials.liftWhere(covered) {
		s.unstoreDenials(d.ID)
		s.Audit(grants.Record{Kind: grants.KindLift, Session: d.Session, Agent: d.Agent, Op: d.Op, Path: d.Path,
			Grant: g.ID, Reason: "denial lifted by the person's later grant"})
	}
}

// grantReaches reports whether g's scope holds path.
func grantReaches(g grants.Grant, path string) bool {
	if g.Kind == guard.KindFolder {
		return guard.Within(g.Path, path)
	}
	return path == g.Path
}
