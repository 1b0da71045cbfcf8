package engine

import (
	"fmt"
	"os"

	"pathgrant/guard"
)

// callerVerdict is why a caller counts as an agent ("" for the person),
// and the sessions of the agent process found.
type callerVerdict struct {
	why, session string
}

// judgeLineage is JudgeCaller for a lineage already in hand (a hook's
// first check); below says whether a process below the daemon counts.
func (s *Engine) judgeLineage(l *Lineage, below bool) callerVerdict {
	lin, readable := l.Whole()
	session, others, marked := s.agents.holds(lin)
	named := session
	if others > 0 {
		named += fmt.Sprintf(" (and %d other sessions)", others)
	}
	switch {
	case marked && !s.agents.marks(lin):
		return callerVerdict{why: "runs in the process group of a confined command of session " + named +
			" (a process it started, detached or not)", session: session}
	case marked:
		return callerVerdict{why: "runs under an agent of session " + named, session: session}
	case below && s.belowDaemon(lin):
		return callerVerdict{why: "was started by the daemon's own tools (a tool call's process, detached or not)"}
	case !readable:
		return callerVerdict{why: "has a process lineage that cannot be read, so it may be an agent"}
	}
	return callerVerdict{}
}

// markAgent remembers the agent chain of a caller that acted for session
// (a check, a tool call) as that session's agent. The chain ends below
// the daemon's own process: the daemon is no agent, nor is whoever
// started it (the person's shell), and what runs below it is refused as
// an agent already (belowDaemon).
func (s *Engine) markAgent(lineage *Lineage, session string) {
	chain := lineage.chain()
	for i, p := range chain {
		if p.PID == s.self.PID {
			chain = chain[:i]
			break
		}
	}
	s.agents.add(chain, session, s.rootsOfSession(session))
}

// rootsOfSession are a live session's roots (none once it is gone).
func (s *Engine) rootsOfSession(id string) guard.SessionPolicy {
	if sess := s.sessions.get(id); sess != nil {
		return sess.roots
	}
	return guard.SessionPolicy{}
}

// belowDaemon reports whether the daemon's own process is a strict
// ancestor in lin. Only the daemon's tool calls start processes below it
// that can reach the socket, and as their child subreaper (package
// daemon) it stays their ancestor even when they detach. The peer being
// the daemon itself (an in-process client) is not below it.
func (s *Engine) belowDaemon(lin []LineageEntry) bool {
	for i, e := range lin {
		if i > 0 && e.PID == s.self.PID && (s.self.Start == 0 || e.Start == s.self.Start) {
			return true
		}
	}
	return false
}

// selfProc is the daemon's own process; a start time that cannot be read
// is 0, and belowDaemon then matches its pid alone (fail closed).
func selfProc() Proc {
	pid := int32(os.Getpid())
	if _, p, _, err := ProcInfo(pid); err == nil {
		return p
	}
	return Proc{PID: pid}
}

// JudgeCaller says why a caller with lineage l counts as an agent, and the
// sessions of the agent process found; why is "" for the person. A
// person-only route is refused to any caller it names a why for.
func (s *Engine) JudgeCaller(l *Lineage) (why, session string) {
	v := s.judgeLineage(l, true)
	return v.why, v.session
}
