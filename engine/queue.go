package engine

import (
	"errors"
	"maps"
	"sort"
	"sync"
	"time"

	"pathgrant/grants"
	"pathgrant/guard"
	"pathgrant/wire"
)

// Approver shows approval requests to the user. Show is called once per new
// request, never per repeat, and must not block; codes are the request's
// one-time approval codes, one per choice offered (wire.Choice), for the
// person's eyes only (the prompt window, the headless daemon's log line):
// never in a notification, an event, an answer or a command line. Withdraw is called when the request was decided or expired, so a
// prompt can close.
type Approver interface {
	Show(r wire.Request, codes []wire.ChoiceCode)
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
	req     wire.Request
	lock    codeLock          // the approval codes' digests, each with its choice; spent once decided
	done    chan struct{}     // closed when decided or expired
	waiters map[int]time.Time // the calls waiting now: when each stops waiting
	// answered are the calls that were waiting when the request was
	// decided: the calls the decision answers, and only those.
	answered map[int]bool
	// sealed: an approval is being written; no call joins any more, and
	// answered already holds the calls it answers (seal).
	sealed bool
	// only is the one command every submission of the request came from,
	// or "" once anyone else (or any unnamed call) raised it too.
	only raiser
}

// raiser names the command whose held opens raise a request, so that an
// open it retries (a command's EINTR restarts the same open) counts as the
// same asker; "" is any other call, each a different asker. A request only
// one command raised goes with that command's interruption (idle).
type raiser string

// waitState sets req.Waiting and req.WaitUntil from the waiters: the
// latest deadline while any waits; once none does, WaitUntil keeps when
// the last one stopped.
func (e *entry) waitState(now time.Time) {
	e.req.Waiting = len(e.waiters)
	if len(e.waiters) == 0 {
		if !e.req.WaitUntil.IsZero() && e.req.WaitUntil.After(now) {
			e.req.WaitUntil = now
		}
		return
	}
	var last time.Time
	for _, dl := range e.waiters {
		if dl.After(last) {
			last = dl
		}
	}
	e.req.WaitUntil = last
}

// queue holds approval requests. It coalesces identical denials, caps each
// session's pending requests and all pending requests together, and ends a
// request not decided within its TTL as a one-time deny, never as a grant.
type queue struct {
	mu         sync.Mutex
	byID       map[string]*entry
	byKey      map[coalesceKey]*entry
	perSession map[string]int
	nextWaiter int
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

// offered is a request as submit left it.
type offered struct {
	req   wire.Request
	codes []wire.ChoiceCode // a new request's approval codes, one per choice
	isNew bool
	// waiter is the submitting call's waiter number (for leave) when it
	// waits, joined in the same step, so that no decision can land
	// between the request appearing and the call waiting on it; 0 when it
	// does not wait or the request is being decided.
	waiter int
}

// submit adds r, or counts a repeat of the identical pending request; a
// call that will wait (until a non-zero waitUntil) joins it at once. A
// new request gets one approval code per choice, each bound to the
// request and to its choice; only their digests are kept. by is who
// raises it.
func (q *queue) submit(r wire.Request, choices []wire.Choice, waitUntil time.Time, by raiser) (offered, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	k := coalesceKey{r.Session, r.Workflow, r.Op, r.Path}
	if e, ok := q.byKey[k]; ok {
		e.req.Count++
		if by != e.only {
			e.only = ""
		}
		w := q.joinLocked(e, waitUntil)
		return offered{req: e.req, waiter: w}, nil
	}
	switch {
	case q.perSession[r.Session] >= q.cap:
		return offered{}, errQueueFull
	case len(q.byKey) >= q.total:
		return offered{}, errQueueTotal
	}
	now := q.now()
	r.ID, r.Count, r.State, r.Created, r.Expires = newID(), 1, wire.StatePending, now, now.Add(q.ttl)
	lock, codes := newCodeLock(r.ID, choices)
	e := &entry{req: r, lock: lock, done: make(chan struct{}),
		waiters: map[int]time.Time{}, only: by}
	q.byID[r.ID], q.byKey[k] = e, e
	q.perSession[r.Session]++
	w := q.joinLocked(e, waitUntil)
	return offered{req: e.req, codes: codes, isNew: true, waiter: w}, nil
}

// codeCheck is the outcome of presenting a code for a pending request.
type codeCheck struct {
	ok     bool        // the code is one of the request's
	wrong  int         // wrong tries so far, this one included
	choice wire.Choice // the one choice the code authorises
}

// tryCode compares code with each of the pending request's in constant
// time and counts a wrong one. A request that is not pending matches
// nothing.
func (q *queue) tryCode(id, code string) codeCheck {
	d := codeDigest(id, code)
	q.mu.Lock()
	defer q.mu.Unlock()
	e := q.byID[id]
	if e == nil || e.req.State != wire.StatePending {
		return codeCheck{}
	}
	if c, ok := e.lock.match(d); ok {
		return codeCheck{ok: true, wrong: e.lock.wrong, choice: c}
	}
	e.lock.wrong++
	return codeCheck{wrong: e.lock.wrong}
}

// resolve returns the id of the one request, pending or decided, whose id
// is or begins with prefix.
func (q *queue) resolve(prefix string) (string, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return grants.MatchPrefix(prefix, maps.Keys(q.byID))
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
	e.lock = codeLock{} // spent: no code approves again
	if !e.sealed {
		e.sealAnswered()
	}
	delete(q.byKey, coalesceKey{e.req.Session, e.req.Workflow, e.req.Op, e.req.Path})
	q.perSession[e.req.Session]--
	close(e.done)
	return e.req, nil
}

// seal fixes the calls an approval of pending request id answers (those
// waiting now) before its grant is written, and lets no other call join:
// how many there are decides whether a once grant is spent by them, and
// no call may slip in between. unseal undoes it when no grant was made.
// A request is sealed once: decisions are serialised (Engine.decideMu),
// and a second seal is refused all the same.
func (q *queue) seal(id string) (answered int, ok bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	e := q.byID[id]
	if e == nil || e.req.State != wire.StatePending || e.sealed {
		return 0, false
	}
	e.sealAnswered()
	e.sealed = true
	return len(e.answered), true
}

func (q *queue) unseal(id string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if e := q.byID[id]; e != nil && e.req.State == wire.StatePending {
		e.sealed, e.answered = false, nil
	}
}

func (e *entry) sealAnswered() {
	e.answered = make(map[int]bool, len(e.waiters))
	for w := range e.waiters {
		e.answered[w] = true
	}
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
		case e.req.State == wire.StatePending && !e.sealed && !now.Before(e.req.Expires): // a sealed one is being approved
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

// waiting reports how many calls waited on a pending request now, or,
// once decided, how many the decision answered.
func (q *queue) waiting(id string) int {
	q.mu.Lock()
	defer q.mu.Unlock()
	if e := q.byID[id]; e != nil {
		if e.req.State == wire.StatePending {
			return len(e.waiters)
		}
		return len(e.answered)
	}
	return 0
}

// idle reports whether pending request id has no call waiting on it, is
// not being decided, and was raised by command by alone: nobody else
// asked for it.
func (q *queue) idle(id string, by raiser) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	e := q.byID[id]
	return e != nil && e.idleFor(by)
}

// idleFor is idle for an entry, with q.mu held.
func (e *entry) idleFor(by raiser) bool {
	return e.req.State == wire.StatePending && !e.sealed && len(e.waiters) == 0 && by != "" && e.only == by
}

// joinLocked counts a call waiting on e until deadline and returns its
// waiter number for leave: 0 for no deadline, or for a request decided
// or being decided, whose decision answered the calls that waited then.
func (q *queue) joinLocked(e *entry, deadline time.Time) int {
	if deadline.IsZero() || e.req.State != wire.StatePending || e.sealed {
		return 0
	}
	q.nextWaiter++
	e.waiters[q.nextWaiter] = deadline
	e.waitState(q.now())
	return q.nextWaiter
}

// leave ends waiter w's wait on request id. It returns the request and
// whether this call was answered by its decision; changed says whether
// the request is still pending and its waiting calls changed (worth
// showing).
func (q *queue) leave(id string, w int) (r wire.Request, answered, changed bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	e := q.byID[id]
	if e == nil {
		return wire.Request{}, false, false
	}
	if e.req.State != wire.StatePending || e.sealed {
		return e.req, e.answered[w], false // being decided: the decision counted it
	}
	delete(e.waiters, w)
	e.waitState(q.now())
	return e.req, false, true
}

// sortRequests orders requests oldest first, by id within one instant,
// so that a page cursor names one place in the order.
func sortRequests(rs []wire.Request) {
	sort.Slice(rs, func(i, j int) bool { return RequestBefore(rs[i], rs[j]) })
}

// RequestBefore orders approval requests: oldest first, then by id.
func RequestBefore(a, b wire.Request) bool {
	if !a.Created.Equal(b.Created) {
		return a.Created.Before(b.Created)
	}
	return a.ID < b.ID
}
