package engine

import (
	"fmt"
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
// each power of ten, with the count.

// maxRefusalsPerSession bounds the distinct refusals a session keeps
// counts for; past it, one record says that further ones go unrecorded.
const maxRefusalsPerSession = 256

type refusalKey struct {
	op   guard.Op
	path string
	rule wire.Rule
	tool string
}

// refusals counts each session's refused checks. Its counts end with the
// session (endSession).
type refusals struct {
	mu        sync.Mutex
	bySession map[string]map[refusalKey]int
}

func newRefusals() *refusals { return &refusals{bySession: map[string]map[refusalKey]int{}} }

// hit counts one refusal of k in session and says whether to audit it, and
// with which count: the first, the tenth, the hundredth… A session past
// its bound gets one record (full) and no more.
func (r *refusals) hit(session string, k refusalKey) (n int, audit, full bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	m := r.bySession[session]
	if m == nil {
		m = map[refusalKey]int{}
		r.bySession[session] = m
	}
	if _, ok := m[k]; !ok && len(m) >= maxRefusalsPerSession {
		if len(m) == maxRefusalsPerSession {
			m[refusalKey{rule: "overflow"}] = 1
			return 0, false, true
		}
		return 0, false, false
	}
	m[k]++
	n = m[k]
	return n, isPowerOfTen(n), false
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

// refused audits a check denied with no prompt to offer, coalesced.
func (s *Engine) refused(sess *session, req wire.CheckRequest, ans wire.Answer) {
	k := refusalKey{op: ans.Op, path: ans.Path, rule: ans.Rule, tool: req.Tool}
	n, audit, full := s.refusals.hit(sess.ID, k)
	rec := grants.Record{Kind: grants.KindRefuse, Session: sess.ID, Workflow: sess.Workflow, Agent: sess.Agent,
		Tool: req.Tool, RequestID: req.RequestID, Op: ans.Op, Path: ans.Path}
	switch {
	case full:
		rec.Op, rec.Path = "", ""
		rec.Reason = fmt.Sprintf("more than %d different refusals in this session: further ones are not recorded", maxRefusalsPerSession)
	case !audit:
		return
	case n == 1:
		rec.Reason = fmt.Sprintf("refused (%s): %s", ans.Rule, ans.Reason)
	default:
		rec.Reason = fmt.Sprintf("refused (%s) %d times in this session: %s", ans.Rule, n, ans.Reason)
	}
	s.Audit(rec)
}

// unmapped answers a check for a tool the hook could not map to the files
// it touches: denied, and recorded as a refusal.
func (s *Engine) unmapped(sess *session, req wire.CheckRequest) wire.Answer {
	ans := wire.Answer{Decision: guard.Deny, Session: sess.ID, Workflow: sess.Workflow, Execution: req.Execution,
		Tool: req.Tool, RequestID: req.RequestID, Rule: wire.RuleUnmapped,
		Reason: fmt.Sprintf("pathgrant cannot tell which files the tool %q touches, so it is denied (the device policy's unmapped_tools = \"ask-client\" lets the client ask instead)", req.Tool)}
	s.refused(sess, req, ans)
	return ans
}
