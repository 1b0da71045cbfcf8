package engine

import (
	"sync"

	"pathgrant/grants"
)

// sessionOwners remembers the live sessions in the order they were
// admitted, with the process that owns each (the agent a hook-only
// session is bound to, or the process that registered it), so that the
// caps on live sessions can be kept: per user, and per process.
type sessionOwners struct {
	mu    sync.Mutex
	order []ownedSession // oldest first
}

type ownedSession struct {
	id       string
	owner    Proc
	hookOnly bool
}

func newSessionOwners() *sessionOwners { return &sessionOwners{} }

func (o *sessionOwners) add(id string, owner Proc, hookOnly bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.order = append(o.order, ownedSession{id: id, owner: owner, hookOnly: hookOnly})
}

// live drops the sessions that are no longer live and returns the rest.
func (o *sessionOwners) live(isLive func(string) bool) []ownedSession {
	o.mu.Lock()
	defer o.mu.Unlock()
	kept := o.order[:0]
	for _, s := range o.order {
		if isLive(s.id) {
			kept = append(kept, s)
		}
	}
	clear(o.order[len(kept):])
	o.order = kept
	return append([]ownedSession(nil), kept...)
}

// admitSession makes room for a new session owned by owner, or refuses
// it with 429. Over the per-process cap, the owner's oldest hook-only
// session is ended; over the per-user cap, the oldest hook-only session
// of anyone. A registration that would need a registered (token) session
// ended is refused instead: those belong to a launcher that is running.
// Called with admitMu held.
func (s *Engine) admitSession(owner Proc) *Error {
	live := s.owners.live(s.SessionLive)
	mine := 0
	for _, o := range live {
		if o.owner == owner {
			mine++
		}
	}
	if mine >= s.cfg.MaxSessionsPerProcess {
		if !s.endOldestHookOnly(live, func(o ownedSession) bool { return o.owner == owner }) {
			return errorf(TooMany, "",
				"too many live sessions for this process (%d): end one before registering another", s.cfg.MaxSessionsPerProcess)
		}
		return nil
	}
	if len(live) >= s.cfg.MaxSessions {
		if !s.endOldestHookOnly(live, func(ownedSession) bool { return true }) {
			return errorf(TooMany, "",
				"too many live sessions (%d): end some before registering more", s.cfg.MaxSessions)
		}
	}
	return nil
}

// endOldestHookOnly ends the oldest hook-only session that pick accepts.
func (s *Engine) endOldestHookOnly(live []ownedSession, pick func(ownedSession) bool) bool {
	for _, o := range live {
		if o.hookOnly && pick(o) {
			s.sessions.end(o.id)
			if _, err := s.cfg.Store.EndSession(o.id); err != nil {
				s.log.Error("end session to make room", "session", o.id, "err", err)
			}
			s.Audit(grants.Record{Kind: grants.KindStale, Session: o.id, Reason: "session ended to make room: too many live sessions"})
			return true
		}
	}
	return false
}
