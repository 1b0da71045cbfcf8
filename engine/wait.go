package engine

import (
	"context"
	"time"

	"pathgrant/grants"
	"pathgrant/guard"
	"pathgrant/wire"
)

// Updater is what an Approver may also implement to follow a pending
// request as it changes: its waiting calls come and go, its repeats are
// counted. Update must not block the daemon.
type Updater interface {
	Update(r wire.Request)
}

// waitDecision waits up to waitMS (at most Config.MaxWait) for the
// person's decision on pending request id, counted as one of its waiting
// calls the whole time, so the prompt shows how many wait and until when.
// ok is false when the wait ended first.
func (s *Engine) waitDecision(ctx context.Context, id string, waitMS int) (wire.Request, bool) {
	wait := min(time.Duration(waitMS)*time.Millisecond, s.cfg.MaxWait)
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	r, done, leave, ok := s.queue.join(id, s.now().Add(wait))
	if !ok {
		return wire.Request{}, false
	}
	s.requestChanged(r)
	decided := false
	select {
	case <-done:
		decided = true
	case <-ctx.Done():
	}
	if r, changed := leave(); changed {
		s.requestChanged(r)
	}
	if !decided {
		return wire.Request{}, false
	}
	r, _, _ = s.queue.get(id)
	return r, true
}

// requestChanged shows a pending request's new waiting count or repeat
// count to the person: the prompt (an Updater) and the event stream.
func (s *Engine) requestChanged(r wire.Request) {
	if r.State != wire.StatePending {
		return
	}
	s.hub.publish(wire.Event{Type: wire.EventRequestUpdated, Time: s.now(), Session: r.Session, Request: &r})
	if u, ok := s.cfg.Approver.(Updater); ok {
		u.Update(r)
	}
}

// reevaluate answers a call that waited on a request the person approved:
// a decision answers every call waiting at that moment. A session or
// device grant serves each of them as it serves any call. A once grant is
// spent by the first; the others were answered by the same decision, so
// they are evaluated with that grant still in hand, and it serves nothing
// else: a grant revoked or invalidated meanwhile serves none of them.
func (s *Engine) reevaluate(sess *session, req wire.CheckRequest, decided wire.Request) (wire.Answer, guard.Decision, *Error) {
	ans, d, err := s.evaluate(sess, req)
	if err != nil || ans.Decision == guard.Allow || decided.Scope != string(grants.ScopeOnce) {
		return ans, d, err
	}
	g, gerr := s.cfg.Store.Get(decided.Grant)
	if gerr != nil || g.Ended != grants.EndConsumed {
		return ans, d, err
	}
	return s.evaluateWith(sess, req, &decidedGrant{g: g.Guard()})
}

// decidedGrant is the once grant of a decision, for the calls that
// waited on it: Lookup finds it where it covers, and its id is never
// used again (the first call spent it).
type decidedGrant struct {
	g guard.Grant
}

func (e *decidedGrant) lookup(op guard.Op, path string, tree bool) string {
	if e != nil && e.g.Covers(op, path, tree) {
		return e.g.ID
	}
	return ""
}

// withDecided is a session's grants plus a decided once grant.
type withDecided struct {
	guard.Grants
	extra *decidedGrant
}

func (w withDecided) Lookup(op guard.Op, path string, tree bool) string {
	if id := w.Grants.Lookup(op, path, tree); id != "" {
		return id
	}
	return w.extra.lookup(op, path, tree)
}
