package ipc

import (
	"net/http"
	"pathgrant/grants"
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

// servePerson refuses h to a caller under an agent (Engine.JudgeCaller): 403,
// one line, audited as forged.
func (s *Server) servePerson(pattern string, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if why, session := s.e.JudgeCaller(s.lineage(r)); why != "" {
			msg := "refused: " + pattern + " is for the person, and the caller " + why + "; use it from your own terminal or the app"
			s.e.Audit(grants.Record{Kind: grants.KindForged, Session: session, Reason: "person-only " + pattern + " from a caller that " + why})
			writeError(w, errorf(http.StatusForbidden, grants.KindForged, "%s", msg))
			return
		}
		h(w, r)
	}
}

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
