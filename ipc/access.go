package ipc

import (
	"net/http"
	"os"

	"pathgrant/grants"
	"pathgrant/guard"
)

// access is who may call a route. Every row of the route table declares
// one through its constructor, so who may call what is read off the table
// and walked by its test (TestEveryRouteDeclaresItsCallers).
type access uint8

const (
	// accessUndeclared is a route built without a constructor: the route
	// walk fails on it, and Handler serves it as person-only (fail closed).
	accessUndeclared access = iota
	// accessOpen is anyone on the socket: health, and registration (which
	// bounds what it registers itself).
	accessOpen
	// accessSession acts for the one session it resolves, and only for it.
	accessSession
	// accessPerson is the person only, never a caller under an agent:
	// every session's requests, the audit log, every grant, approving,
	// and denying or revoking for any session.
	accessPerson
)

// anyone declares a route open to every caller on the socket.
func anyone(pattern string, h http.HandlerFunc) route {
	return route{pattern: pattern, handle: h, access: accessOpen}
}

// personOnly declares a route for the person alone: Handler refuses it to
// a caller under an agent before h runs (servePerson).
func personOnly(pattern string, h http.HandlerFunc) route {
	return route{pattern: pattern, handle: h, access: accessPerson}
}

// servePerson refuses h to a caller under an agent (callerIsAgent): 403,
// one line, audited as forged.
func (s *Server) servePerson(pattern string, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if v := s.judgeCaller(r); v.why != "" {
			msg := "refused: " + pattern + " is for the person, and the caller " + v.why + "; use it from your own terminal or the app"
			s.audit(grants.Record{Kind: grants.KindForged, Session: v.session, Reason: "person-only " + pattern + " from a caller that " + v.why})
			writeError(w, errorf(http.StatusForbidden, grants.KindForged, "%s", msg))
			return
		}
		h(w, r)
	}
}

// callerIsAgent reports whether the request's caller may act for an
// agent, and so may not decide, deny or revoke for any session, list every
// session's requests or grants, read the audit log, or register a session
// beyond its own: its process lineage holds a process that sent checks or
// tool calls, or has the daemon itself as a strict ancestor (a process a
// tool call started, detached or not: the daemon is their subreaper), or
// cannot be read. session is the sessions (comma-joined, sorted) of the
// first marked process in the lineage; "" with agent true is an agent
// whose session is unknown (an orphan of a tool call whose shell has
// exited, an unreadable lineage). Only a session that is exactly one id
// bounds what such a caller may do; "" or several ids bound it to
// nothing.
func (s *Server) callerIsAgent(r *http.Request) (session string, agent bool) {
	v := s.judgeCaller(r)
	return v.session, v.why != ""
}

// callerVerdict is why a caller counts as an agent ("" for the person),
// and the sessions of the agent process found.
type callerVerdict struct {
	why, session string
}

func (s *Server) judgeCaller(r *http.Request) callerVerdict {
	return s.judgeLineage(s.lineage(r), true)
}

// judgeLineage is judgeCaller for a lineage already in hand (a hook's
// first check); below says whether a process below the daemon counts.
func (s *Server) judgeLineage(l *lineageOf, below bool) callerVerdict {
	lin, readable := l.whole()
	session, marked := s.agents.holds(lin)
	switch {
	case marked:
		return callerVerdict{why: "runs under an agent of session " + session, session: session}
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
func (s *Server) markAgent(lineage *lineageOf, session string) {
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
func (s *Server) rootsOfSession(id string) guard.SessionPolicy {
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
func (s *Server) belowDaemon(lin []lineageEntry) bool {
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
	if _, p, _, err := procInfo(pid); err == nil {
		return p
	}
	return Proc{PID: pid}
}
