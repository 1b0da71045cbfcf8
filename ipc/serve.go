package ipc

import (
	"net/http"

	"pathgrant/engine"
	"pathgrant/grants"
	"pathgrant/wire"
)

// sessionBody is a request body that can name its session.
type sessionBody interface {
	sessionIDs() (body, env, client string)
}

// agentBody is a body that can ask for the session bound to the caller's
// agent process instead of naming one (the MCP bridge of a hook-only
// client, which never learns the client's own session id).
type agentBody interface {
	agentProcess() bool
}

// sessionCall is what a session route's handler gets: the call the
// engine resolved, and the body read for it.
type sessionCall struct {
	engine.Call
	body sessionBody // nil for routes without a body
}

// sessionHandler serves a route that acts for a session; it runs only
// after the session resolved.
type sessionHandler func(w http.ResponseWriter, r *http.Request, c sessionCall)

// sessionRoute is how a route that acts for a session finds it: the
// sources it takes the id from, the body (read once, for body-sourced ids
// and for the handler), and the handler.
type sessionRoute struct {
	sources engine.Source
	body    func() sessionBody // nil: the route takes no body
	act     sessionHandler
	// capability is the kind of capability that is the route's only
	// identity (the exec routes; see wire.ExecInfo): a request without
	// one is refused before any session resolves.
	capability engine.CapKind
}

// serveSession reads the route's body, has the engine resolve its session
// from everything the request carries, and only then calls the handler.
func (s *Server) serveSession(sr *sessionRoute) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var body sessionBody
		if sr.body != nil {
			body = sr.body()
			if err := decodeStrict(r, body); err != nil {
				writeError(w, err)
				return
			}
		}
		a := engine.Ask{Route: r.URL.Path, Declared: sr.sources, IDs: requestIDs(r, body), Token: r.Header.Get(wire.HeaderToken),
			Caller: s.lineage(r), Capability: r.Header.Get(wire.HeaderCapability), CommandHash: r.Header.Get(wire.HeaderCommandHash),
			TakesCapability: sr.capability}
		if cb, ok := body.(*checkBody); ok {
			a.Check = &cb.CheckRequest
		}
		c, err := s.e.Resolve(a)
		if err != nil {
			writeError(w, fromEngine(err))
			return
		}
		sr.act(w, r, sessionCall{Call: c, body: body})
	}
}

// requestIDs collects every session id the request carries.
func requestIDs(r *http.Request, body sessionBody) engine.IDs {
	ids := engine.IDs{URL: r.PathValue("session"), Query: r.URL.Query().Get("session"), Header: r.Header.Get(wire.HeaderSession)}
	if body != nil {
		ids.Body, ids.Env, ids.Client = body.sessionIDs()
	}
	if ab, ok := body.(agentBody); ok {
		ids.AgentProcess = ab.agentProcess()
	}
	return ids
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
