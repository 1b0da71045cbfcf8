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
// all its commands; each command's supervisor has its own, smaller bound.
const maxHeldPerSession = 32

// heldCount counts the opens each session has held now.
type heldCount struct {
	mu sync.Mutex
	n  map[string]int
}

func newHeldCount() *heldCount { return &heldCount{n: map[string]int{}} }

func (h *heldCount) take(session string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.n[session] >= maxHeldPerSession {
		return false
	}
	h.n[session]++
	return true
}

func (h *heldCount) done(session string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.n[session]--; h.n[session] <= 0 {
		delete(h.n, session)
	}
}

// Hold answers a held open for the call's hold ticket.
func (s *Engine) Hold(ctx context.Context, c Call, r wire.HoldRequest) (wire.HoldAnswer, *Error) {
	if c.cap == nil || c.cap.kind != CapHold {
		return wire.HoldAnswer{}, errorf(Forbidden, grants.KindForged, "a held open takes a hold ticket")
	}
	if slices.Contains(c.cap.denied, r.Path) {
		return wire.HoldAnswer{Line: heldLine(r, "the person denied reading it for this command")}, nil
	}
	return s.held(ctx, c.sess, c.cap.roots, r)
}

// held asks, for sess, to read r.Path, which must lie under one of roots
// (the command's approvable roots), waiting for the person as long as a
// check may. A wait cut short because the command was interrupted leaves
// no request behind that only it had raised.
func (s *Engine) held(ctx context.Context, sess *session, roots []string, r wire.HoldRequest) (wire.HoldAnswer, *Error) {
	if !filepath.IsAbs(r.Path) || filepath.Clean(r.Path) != r.Path ||
		!slices.ContainsFunc(roots, func(root string) bool { return guard.Within(root, r.Path) }) {
		return wire.HoldAnswer{}, errorf(BadRequest, "", "a held open names a clean absolute path under the command's approvable roots")
	}
	if !s.holds.take(sess.ID) {
		return wire.HoldAnswer{Line: heldLine(r, fmt.Sprintf("%d opens of this session already wait for the person", maxHeldPerSession))}, nil
	}
	defer s.holds.done(sess.ID)
	ans, err := s.check(ctx, sess, wire.CheckRequest{Op: guard.OpRead, Path: r.Path, Tool: HoldTool, Held: r.Program,
		WaitMS: int(s.cfg.MaxWait / time.Millisecond)})
	if ans.Pending != "" && ctx.Err() != nil {
		s.withdraw(ans.Pending)
	}
	switch {
	case err != nil:
		return wire.HoldAnswer{}, err
	case ans.Decision == guard.Allow:
		return wire.HoldAnswer{Allowed: true, Path: ans.Path, Request: ans.Pending}, nil
	case ans.Pending != "" && ans.Eligible:
		return wire.HoldAnswer{Request: ans.Pending, Line: heldLine(r, "no decision in time (request "+ans.Pending+" stays pending: approve it, then run the command again)")}, nil
	}
	return wire.HoldAnswer{Request: ans.Pending, Line: heldLine(r, oneLine(ans.Reason))}, nil
}

// heldLine is the one refusal line a held open that failed adds to the
// command's stderr.
func heldLine(r wire.HoldRequest, why string) string {
	return fmt.Sprintf("pathgrant: %s: the read was held for approval and refused: %s", wire.Printable(r.Path), why)
}

// withdraw ends a pending request that no call waits on any more and that
// only one call ever raised: the held open that was interrupted.
func (s *Engine) withdraw(id string) {
	s.decideMu.Lock()
	defer s.decideMu.Unlock()
	if !s.queue.idle(id) {
		return
	}
	_, _ = s.finish(id, wire.StateEnded, "deny", "", "withdrawn: the command waiting on it was interrupted")
}

// heldOpens asks for the daemon's own tool calls, in process.
type heldOpens struct {
	s     *Engine
	sess  *session
	roots []string
}

func (h heldOpens) AskHold(ctx context.Context, r wire.HoldRequest) (wire.HoldAnswer, error) {
	ans, err := h.s.held(ctx, h.sess, h.roots, r)
	if err != nil {
		return ans, err
	}
	return ans, nil
}

// holdAsker is what a prepared command's supervisor asks through in
// process, or nil when its opens are not held.
func (s *Engine) holdAsker(sess *session, p wire.Prepared) supervise.Asker {
	if p.Hold == nil {
		return nil
	}
	return heldOpens{s: s, sess: sess, roots: p.Hold.Roots}
}
