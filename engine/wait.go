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

// waitBudget is how long a call on sess may wait for the person: its
// wait_ms, at most Config.MaxWait; nothing for a session that is not
// interactive.
func (s *Engine) waitBudget(sess *session, waitMS int) time.Duration {
	if sess.Kind != wire.KindInteractive || waitMS <= 0 {
		return 0
	}
	return min(time.Duration(waitMS)*time.Millisecond, s.cfg.MaxWait)
}

// waitDecision waits up to wait for the person's decision on pending
// request id, which the call joined as waiter w when it raised it
// (queue.submit), counted as one of its waiting calls the whole time, so
// the prompt shows how many wait and until when. ok is true only for a
// call the decision answered: one that was waiting when it was made.
func (s *Engine) waitDecision(ctx context.Context, id string, w int, wait time.Duration) (wire.Request, bool) {
	_, done, found := s.queue.get(id)
	if w == 0 || !found {
		return wire.Request{}, false
	}
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	select {
	case <-done:
	case <-ctx.Done():
	}
	r, answered, changed := s.queue.leave(id, w)
	if answered && r.State == wire.StatePending {
		// sealed: an approval that counts this call is being written
		select {
		case <-done:
		case <-time.After(sealWait):
		}
		r, answered, changed = s.queue.leave(id, w)
		answered = answered && r.State != wire.StatePending
	}
	if changed {
		s.requestChanged(r)
	}
	return r, answered
}

// sealWait bounds how long a call whose wait ended keeps waiting for an
// approval that was sealed with it counted (queue.seal): the store writes
// the grant in far less.
const sealWait = 5 * time.Second

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
// device grant serves each of them as it serves any call. A once grant
// approved while calls waited was spent by the decision itself
// (grants.NewGrant.Spent), so it serves no call that did not wait; the
// calls that did are evaluated with it in hand, and a grant revoked,
// invalidated or whose file was replaced meanwhile serves none of them.
func (s *Engine) reevaluate(sess *session, req wire.CheckRequest, decided wire.Request) (wire.Answer, guard.Decision, *Error) {
	ans, d, err := s.evaluate(sess, req)
	if err != nil || ans.Decision == guard.Allow || decided.Scope != string(grants.ScopeOnce) {
		return ans, d, err
	}
	g, gerr := s.cfg.Store.Get(decided.Grant)
	if gerr != nil || g.Ended != grants.EndConsumed {
		return ans, d, err
	}
	return s.evaluateWith(sess, req, &decidedGrant{g: g})
}

// decidedGrant is the once grant of a decision, for the calls that
// waited on it: lookup finds it where it covers and its file is still the
// one approved; its use is never recorded again (it is spent).
type decidedGrant struct {
	g grants.Grant
}

func (e *decidedGrant) lookup(op guard.Op, path string, tree bool) string {
	if e == nil || !e.g.Guard().Covers(op, path, tree) {
		return ""
	}
	if why, err := e.g.Replaced(); why != "" || err != nil {
		return "" // the file the person approved is not the one there now
	}
	return e.g.ID
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
