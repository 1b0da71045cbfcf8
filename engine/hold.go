package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"pathgrant/grants"
	"pathgrant/guard"
	"pathgrant/sandbox/supervise"
	"pathgrant/wire"
)

// A held open is a confined command paused in the open of a file under an
// approvable root (package sandbox/supervise): its supervisor asks here to
// read the file, on the session's behalf, exactly as a hook's check of
// that read would (the same request, coalesced, the same prompt and code
// rules), and waits for the person. The front end process presents the
// command's hold ticket (CapHold, PathHold): valid for this alone, for as
// long as the command may run, and for no other route; the daemon's own
// tool calls ask in process (heldOpens). Nothing asked here is more than
// the agent could ask through its own hook.

// HoldTool is the tool a held open's check and request name.
const HoldTool = "open (command paused)"

// maxHeldPerSession bounds the opens held at once in one session, over
// all its commands, and maxHeldPerMinute how many it may hold in a
// minute; each command's supervisor has its own, smaller bounds.
const (
	maxHeldPerSession = 32
	maxHeldPerMinute  = 120
)

// heldCount counts the opens each session holds now and has held this
// minute.
type heldCount struct {
	mu sync.Mutex
	n  map[string]*heldOf
}

type heldOf struct {
	now, asked int
	window     time.Time
}

func newHeldCount() *heldCount { return &heldCount{n: map[string]*heldOf{}} }

// take counts one more held open of session at now, or says which bound
// it is past.
func (h *heldCount) take(session string, now time.Time) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	c := h.n[session]
	if c == nil {
		c = &heldOf{}
		h.n[session] = c
	}
	if now.Sub(c.window) >= time.Minute {
		c.window, c.asked = now, 0
	}
	switch {
	case c.now >= maxHeldPerSession:
		return fmt.Sprintf("%d opens of this session already wait for the person", maxHeldPerSession)
	case c.asked >= maxHeldPerMinute:
		return fmt.Sprintf("this session's commands asked %d times within a minute", maxHeldPerMinute)
	}
	c.now++
	c.asked++
	return ""
}

// done counts one held open of session less; forget drops the session.
func (h *heldCount) done(session string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if c := h.n[session]; c != nil {
		c.now--
	}
}

// forget drops sessions with nothing held and a minute past: the sweeper
// calls it, so ended sessions leave nothing behind.
func (h *heldCount) forget(now time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for id, c := range h.n {
		if c.now <= 0 && now.Sub(c.window) >= time.Minute {
			delete(h.n, id)
		}
	}
}

// Hold answers a held open for the call's hold ticket.
func (s *Engine) Hold(ctx context.Context, c Call, r wire.HoldRequest) (wire.HoldAnswer, *Error) {
	if c.cap == nil || c.cap.kind != CapHold {
		return wire.HoldAnswer{}, errorf(Forbidden, grants.KindForged, "a held open takes a hold ticket")
	}
	if peer, ok := c.caller.Peer(); !ok || peer != c.cap.holder {
		s.caps.revoke(c.cap)
		return wire.HoldAnswer{}, s.refuse(errorf(Forbidden, grants.KindForged, "a hold ticket is its front end's alone"), c.sess.ID)
	}
	if slices.Contains(c.cap.denied, r.Path) {
		return wire.HoldAnswer{Line: heldLine(r, "the person denied reading it for this command")}, nil
	}
	by := raiser(fmt.Sprintf("front end %d started %d", c.cap.holder.PID, c.cap.holder.Start))
	return s.held(ctx, c.sess, c.cap.roots, r, by, c.cap.clock)
}

// held asks, for sess, to read r.Path, which must lie under one of roots
// (the command's approvable roots), waiting for the person as long as a
// check may, and no longer than the command's client lets it run
// (clock). A wait cut short because the command was interrupted, or
// because its client's clock ran out, ends the request that only it had
// raised (by, the command: the opens it retries count as its own), in
// words the person's window shows.
func (s *Engine) held(ctx context.Context, sess *session, roots []string, r wire.HoldRequest, by raiser, clock toolClock) (wire.HoldAnswer, *Error) {
	if !filepath.IsAbs(r.Path) || filepath.Clean(r.Path) != r.Path ||
		!slices.ContainsFunc(roots, func(root string) bool { return guard.Within(root, r.Path) }) {
		return wire.HoldAnswer{}, errorf(BadRequest, "", "a held open names a clean absolute path under the command's approvable roots")
	}
	if why := s.holds.take(sess.ID, s.now()); why != "" {
		return wire.HoldAnswer{Line: heldLine(r, why)}, nil
	}
	defer s.holds.done(sess.ID)
	wait, byClock := clock.wait(s.cfg.MaxWait, s.now())
	if byClock && wait <= 0 {
		// its client stops the command now: a request would only flash
		// up and end
		return wire.HoldAnswer{Line: heldLine(r, "not asked: "+clock.words+", and that time is up")}, nil
	}
	ans, err := s.check(ctx, sess, wire.CheckRequest{Op: guard.OpRead, Path: r.Path, Tool: HoldTool, Held: r.Program, HeldBy: heldBy(r.By),
		Purpose: clock.purpose, WaitMS: int(wait / time.Millisecond)}, by)
	undecided := ans.Pending != "" && ans.Eligible && ans.Decision != guard.Allow
	ranOut := false
	switch {
	case ans.Pending != "" && ctx.Err() != nil:
		s.withdraw(ans.Pending, by, clock.ended(false))
	case undecided && byClock:
		ranOut = s.withdraw(ans.Pending, by, clock.ended(true))
	}
	switch {
	case err != nil:
		return wire.HoldAnswer{}, err
	case ans.Decision == guard.Allow:
		return wire.HoldAnswer{Allowed: true, Path: ans.Path, Request: ans.Pending}, nil
	case ranOut:
		return wire.HoldAnswer{Request: ans.Pending, Line: heldLine(r, "no decision before "+clock.words+
			" (the request ended with the command: run it again to ask again)")}, nil
	case undecided:
		return wire.HoldAnswer{Request: ans.Pending, Line: heldLine(r, "no decision in time (request "+ans.Pending+
			" stays pending: the person can approve it in pathgrant's window or with `pathgrant approve`; then run the command again)")}, nil
	}
	return wire.HoldAnswer{Request: ans.Pending, Line: heldLine(r, oneLine(ans.Reason))}, nil
}

// heldLine is the one refusal line a held open that failed adds to the
// command's stderr.
func heldLine(r wire.HoldRequest, why string) string {
	return fmt.Sprintf("pathgrant: %s: the read was held for approval and refused: %s", wire.Printable(r.Path), why)
}

// withdraw ends a pending request that no call waits on any more and that
// only command by ever raised (its held opens): the command is gone or
// its client's clock ran out. ended says so, in words, on the request
// the event and the window carry. It reports whether the request ended:
// one another call waits on, or raised too, stays pending.
func (s *Engine) withdraw(id string, by raiser, ended string) bool {
	s.decideMu.Lock()
	defer s.decideMu.Unlock()
	if !s.queue.endIdle(id, by, ended) {
		return false
	}
	_, err := s.finish(id, wire.StateEnded, "deny", "", "withdrawn: "+ended)
	return err == nil
}

// endIdle marks pending request id as ending undecided, for ended, when
// it is idle for by (queue.idle), in one step, so no call joins between
// the look and the mark.
func (q *queue) endIdle(id string, by raiser, ended string) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	e := q.byID[id]
	if e == nil || !e.idleFor(by) {
		return false
	}
	e.req.Ended = wire.Cut(wire.Printable(ended), wire.MaxInput)
	e.sealed = true // no call joins a request that is ending
	return true
}

// heldOpens asks for the daemon's own tool calls, in process; by names
// the one command.
type heldOpens struct {
	s     *Engine
	sess  *session
	roots []string
	by    raiser
	// denied are the reads the person denied in the check the command's
	// exec capability was issued with: refused without asking again.
	denied []string
	// clock is the command's client clock and purpose (clock.go).
	clock toolClock
}

func (h heldOpens) AskHold(ctx context.Context, r wire.HoldRequest) (wire.HoldAnswer, error) {
	if slices.Contains(h.denied, r.Path) {
		return wire.HoldAnswer{Line: heldLine(r, "the person denied reading it for this command")}, nil
	}
	ans, err := h.s.held(ctx, h.sess, h.roots, r, h.by, h.clock)
	if err != nil {
		return ans, err
	}
	return ans, nil // not err: a nil *Error is no nil error
}

// holdAsker is what a prepared command's supervisor asks through in
// process, as the command by within its clock, or nil when its opens are
// not held.
func (s *Engine) holdAsker(sess *session, p wire.Prepared, by raiser, clock toolClock) supervise.Asker {
	if p.Hold == nil {
		return nil
	}
	return heldOpens{s: s, sess: sess, roots: p.Hold.Roots, by: by, clock: clock}
}

// heldBy is a held open's By as the request shows it: only the two
// known values (a front end's request names its own).
func heldBy(by string) string {
	if by == wire.HeldByFS {
		return by
	}
	return wire.HeldBySeccomp
}
