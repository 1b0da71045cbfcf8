package ipc

import (
	"context"
	"errors"
	"sort"
	"sync"
	"time"

	"pathgrant/guard"
	"pathgrant/wire"
)

// Approver shows approval requests to the user. Show is called once per new
// request, never per repeat, and must not block; code is the request's
// one-time approval code, for the person's eyes only (the prompt window,
// the headless daemon's log line): never in a notification, an event or an
// answer. Withdraw is called when the request was decided or expired, so a
// prompt can close.
type Approver interface {
	Show(r wire.Request, code string)
	Withdraw(id string)
}

var (
	errQueueFull  = errors.New("too many pending approval requests for this session")
	errQueueTotal = errors.New("too many pending approval requests on this device")
	errNotPending = errors.New("approval request is no longer pending")
)

type coalesceKey struct {
	session, workflow string
	op                guard.Op
	path              string
}

type entry struct {
	req  wire.Request
	lock codeLock      // the approval code's digest and ceiling; spent once decided
	done chan struct{} // closed when decided or expired
}

// queue holds approval requests. It coalesces identical denials, caps each
// session's pending requests and all pending requests together, and ends a
// request not decided within its TTL as a one-time deny, never as a grant.
type queue struct {
	mu         sync.Mutex
	byID       map[string]*entry
	byKey      map[coalesceKey]*entry
	perSession map[string]int
	cap        int // per session
	total      int // all sessions
	ttl        time.Duration
	now        func() time.Time
}

func newQueue(capPerSession, total int, ttl time.Duration, now func() time.Time) *queue {
	return &queue{
		byID: map[string]*entry{}, byKey: map[coalesceKey]*entry{}, perSession: map[string]int{},
		cap: capPerSession, total: total, ttl: ttl, now: now,
	}
}

// submit adds r, or counts a repeat of the identical pending request. It
// returns the pending request, whether it is new and, when new, its
// approval code, bound to the request and to ceil. Only the code's digest
// is kept.
func (q *queue) submit(r wire.Request, ceil ceiling) (wire.Request, string, bool, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	k := coalesceKey{r.Session, r.Workflow, r.Op, r.Path}
	if e, ok := q.byKey[k]; ok {
		e.req.Count++
		return e.req, "", false, nil
	}
	switch {
	case q.perSession[r.Session] >= q.cap:
		return wire.Request{}, "", false, errQueueFull
	case len(q.byKey) >= q.total:
		return wire.Request{}, "", false, errQueueTotal
	}
	now := q.now()
	r.ID, r.Count, r.State, r.Created, r.Expires = newID(), 1, wire.StatePending, now, now.Add(q.ttl)
	code := newApprovalCode()
	e := &entry{req: r, lock: codeLock{digest: codeDigest(r.ID, code), ceiling: ceil}, done: make(chan struct{})}
	q.byID[r.ID], q.byKey[k] = e, e
	q.perSession[r.Session]++
	return r, code, true, nil
}

// codeCheck is the outcome of presenting a code for a pending request.
type codeCheck struct {
	ok      bool    // the code is the request's
	wrong   int     // wrong tries so far, this one included
	ceiling ceiling // what the code may authorise
}

// tryCode compares code with the pending request's in constant time and
// counts a wrong one. A request that is not pending matches nothing.
func (q *queue) tryCode(id, code string) codeCheck {
	d := codeDigest(id, code)
	q.mu.Lock()
	defer q.mu.Unlock()
	e := q.byID[id]
	if e == nil || e.req.State != wire.StatePending {
		return codeCheck{}
	}
	if e.lock.matches(d) {
		return codeCheck{ok: true, wrong: e.lock.wrong, ceiling: e.lock.ceiling}
	}
	e.lock.wrong++
	return codeCheck{wrong: e.lock.wrong, ceiling: e.lock.ceiling}
}

// get returns a request by id, pending or decided.
func (q *queue) get(id string) (wire.Request, chan struct{}, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	e, ok := q.byID[id]
	if !ok {
		return wire.Request{}, nil, false
	}
	return e.req, e.done, true
}

// decide ends a pending request in state with the grant it produced.
// Exactly one decision wins; later ones get errNotPending.
func (q *queue) decide(id, state, scope, grant string) (wire.Request, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	e := q.byID[id]
	if e == nil || e.req.State != wire.StatePending { // only decided entries are ever forgotten
		return wire.Request{}, errNotPending
	}
	e.req.State, e.req.Scope, e.req.Grant = state, scope, grant
	e.lock = codeLock{} // spent: the code never approves again
	delete(q.byKey, coalesceKey{e.req.Session, e.req.Workflow, e.req.Op, e.req.Path})
	q.perSession[e.req.Session]--
	close(e.done)
	return e.req, nil
}

// pending lists the requests still waiting, oldest first.
func (q *queue) pending() []wire.Request {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := make([]wire.Request, 0, len(q.byKey))
	for _, e := range q.byKey {
		out = append(out, e.req)
	}
	sortRequests(out)
	return out
}

// expire ends every pending request past its TTL as denied and returns
// them; decided requests older than keep are forgotten.
func (q *queue) expire(keep time.Duration) []wire.Request {
	now := q.now()
	var ended []wire.Request
	q.mu.Lock()
	for id, e := range q.byID {
		switch {
		case e.req.State == wire.StatePending && !now.Before(e.req.Expires):
			ended = append(ended, e.req)
		case e.req.State != wire.StatePending && now.Sub(e.req.Expires) > keep:
			delete(q.byID, id)
		}
	}
	q.mu.Unlock()
	var out []wire.Request
	for _, r := range ended {
		if d, err := q.decide(r.ID, wire.StateExpired, "deny", ""); err == nil {
			out = append(out, d)
		}
	}
	return out
}

// wait blocks until the request is decided or ctx ends.
func (q *queue) wait(ctx context.Context, id string) (wire.Request, bool) {
	_, done, ok := q.get(id)
	if !ok {
		return wire.Request{}, false
	}
	select {
	case <-done:
		r, _, _ := q.get(id)
		return r, true
	case <-ctx.Done():
		return wire.Request{}, false
	}
}

// sortRequests orders requests oldest first, by id within one instant,
// so that a page cursor names one place in the order.
func sortRequests(rs []wire.Request) {
	sort.Slice(rs, func(i, j int) bool { return requestBefore(rs[i], rs[j]) })
}

func requestBefore(a, b wire.Request) bool {
	if !a.Created.Equal(b.Created) {
		return a.Created.Before(b.Created)
	}
	return a.ID < b.ID
}
