package engine

import (
	"fmt"
	"strings"
	"sync"

	"pathgrant/grants"
	"pathgrant/guard"
	"pathgrant/wire"
)

// A refused check is a denial that could never become a prompt: a
// protected path (~/.ssh), a write outside the workspace, a tool no one
// can map. The person still wants to see that it was tried, but an agent
// retrying in a loop must not fill the log: refusals are coalesced per
// session by what was refused, and audited on the first try and again at
// each power of ten, with the count. Past a bound of distinct refusals,
// they are coalesced by op and rule, so junk cannot hide a later probe.

// maxRefusalsPerSession bounds the distinct refusals a session keeps
// counts for; past it, refusals are counted by op and rule alone, so junk
// cannot crowd a real probe out of the log.
const maxRefusalsPerSession = 256

// A refusal's key keeps at most this much of what the caller sent, so
// that its counts cost the daemon a bounded amount of memory.
const (
	maxRefusalTool = 128
	maxRefusalPath = 4096
)

// cut is s cut to n bytes, in its own memory: a substring would keep the
// caller's whole string alive.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.Clone(s[:n])
}

type refusalKey struct {
	op   guard.Op
	path string
	rule wire.Rule
	tool string
	// overflow: a refusal past the session's bound, counted by op and
	// rule alone
	overflow bool
}

// refusals counts each session's refused checks. Its counts end with the
// session (Engine.forgetSession).
type refusals struct {
	mu        sync.Mutex
	bySession map[string]map[refusalKey]int
}

func newRefusals() *refusals { return &refusals{bySession: map[string]map[refusalKey]int{}} }

// hit counts one refusal of k in session and returns its count. Past the
// session's bound a new refusal is counted by its op and rule alone
// (overflow): a bounded set of counts, each still audited.
func (r *refusals) hit(session string, k refusalKey) (n int, overflow bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	m := r.bySession[session]
	if m == nil {
		m = map[refusalKey]int{}
		r.bySession[session] = m
	}
	if _, ok := m[k]; !ok && len(m) >= maxRefusalsPerSession {
		k, overflow = refusalKey{op: k.op, rule: k.rule, overflow: true}, true
	}
	m[k]++
	return m[k], overflow
}

func isPowerOfTen(n int) bool {
	for n >= 10 && n%10 == 0 {
		n /= 10
	}
	return n == 1
}

func (r *refusals) endSession(session string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.bySession, session)
}

// refused audits a check denied with no prompt to offer, coalesced: the
// first of each refusal and its 10th, 100th, … with the count.
func (s *Engine) refused(sess *session, req wire.CheckRequest, ans wire.Answer) {
	k := refusalKey{op: ans.Op, path: cut(ans.Path, maxRefusalPath), rule: ans.Rule, tool: cut(req.Tool, maxRefusalTool)}
	n, overflow := s.refusals.hit(sess.ID, k)
	if !isPowerOfTen(n) {
		return
	}
	rec := grants.Record{Kind: grants.KindRefuse, Session: sess.ID, Workflow: sess.Workflow, Agent: sess.Agent,
		Tool: req.Tool, RequestID: req.RequestID, Op: ans.Op, Path: ans.Path}
	switch {
	case overflow:
		rec.Reason = fmt.Sprintf("refused (%s) %d times beyond the session's first %d different refusals; the latest: %s", ans.Rule, n, maxRefusalsPerSession, ans.Reason)
	case n == 1:
		rec.Reason = fmt.Sprintf("refused (%s): %s", ans.Rule, ans.Reason)
	default:
		rec.Reason = fmt.Sprintf("refused (%s) %d times in this session: %s", ans.Rule, n, ans.Reason)
	}
	s.Audit(rec)
}
