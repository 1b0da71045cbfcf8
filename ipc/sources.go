package ipc

import (
	"net/http"
	"strings"

	"pathgrant/grants"
	"pathgrant/wire"
)

// source is one place a request may name its session. Each session route
// declares the sources it takes; a request naming its session anywhere
// else is refused rather than having that id silently ignored.
type source uint8

// The sources a session id may come from.
const (
	srcURL    source = 1 << iota // the path: /s/{session}/…, /v1/sessions/{session}
	srcQuery                     // ?session=
	srcHeader                    // the X-Session-ID header
	srcBody                      // the body's session_id
	srcEnv                       // the body's env_session (the hook's PATHGRANT_SESSION)
	srcClient                    // the body's client_session (the agent client's own id)
	srcAgent                     // the body's agent_process: the session bound to the caller's agent process
)

var sourceNames = []struct {
	src  source
	name string
}{{srcURL, "url"}, {srcQuery, "query"}, {srcHeader, "header"}, {srcBody, "body"}, {srcEnv, "env"}, {srcClient, "client"}, {srcAgent, "agent"}}

// String names the sources in s, "url|header" style.
func (s source) String() string {
	var parts []string
	for _, n := range sourceNames {
		if s&n.src != 0 {
			parts = append(parts, n.name)
		}
	}
	return strings.Join(parts, "|")
}

// kinds splits s into its single sources, in declaration order.
func (s source) kinds() []source {
	var out []source
	for _, n := range sourceNames {
		if s&n.src != 0 {
			out = append(out, n.src)
		}
	}
	return out
}

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

// checkBody is a check's body; toolBody a tool call's.
type checkBody struct{ wire.CheckRequest }

type toolBody struct{ wire.ToolRequest }

func (r *checkBody) sessionIDs() (body, env, client string) {
	return r.SessionID, r.EnvSession, r.ClientSession
}

// sessionCall is what a session route's handler gets: the session its
// request resolved to, the peer's lineage, and the body read for it.
type sessionCall struct {
	sess    *session
	lineage *lineageOf
	body    sessionBody // nil for routes without a body
	cap     *capEntry   // the exec capability the session came from, if any
}

// sessionHandler serves a route that acts for a session; it runs only
// after the session resolved.
type sessionHandler func(w http.ResponseWriter, r *http.Request, c sessionCall)

// sessionRoute is how a route that acts for a session finds it: the
// sources it takes the id from, the body (read once, for body-sourced ids
// and for the handler), and the handler.
type sessionRoute struct {
	sources source
	body    func() sessionBody // nil: the route takes no body
	act     sessionHandler
	// capability is the kind of capability that is the route's only
	// identity (the exec routes; see ExecInfo): a request without one is
	// refused before any session resolves.
	capability capKind
}

// serveSession reads the route's body, resolves its session through
// resolveSession, and only then calls the handler.
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
		var c sessionCall
		var err *apiError
		switch {
		case r.Header.Get(wire.HeaderCapability) != "":
			c, err = s.resolveCapabilityCall(sr, r, body)
		case sr.capability != "":
			err = errorf(http.StatusBadRequest, grants.KindConflict, "%s takes a %s capability, not a session", r.URL.Path, sr.capability)
			s.audit(grants.Record{Kind: err.kind, Reason: err.msg})
		default:
			c, err = s.resolveRequest(sr.sources, r, body)
		}
		if err != nil {
			writeError(w, err)
			return
		}
		sr.act(w, r, c)
	}
}

// resolveRequest resolves the session a request names in its declared
// sources. An id given in an undeclared source is 400, audited like every
// other refusal.
func (s *Server) resolveRequest(declared source, r *http.Request, body sessionBody) (sessionCall, *apiError) {
	src, client, got := requestSources(r, body)
	if extra := got &^ declared; extra != 0 {
		err := errorf(http.StatusBadRequest, grants.KindConflict,
			"this route takes the session id from %s, not from %s", declared, extra)
		s.audit(grants.Record{Kind: err.kind, Session: firstNonEmpty(src.URL, src.Query, src.Header, src.Body, src.Env, client), Reason: err.msg})
		return sessionCall{}, err
	}
	lineage := s.lineage(r)
	if got&srcAgent != 0 {
		sess, err := s.resolveAgent(src, lineage)
		if err != nil {
			return sessionCall{}, err
		}
		return sessionCall{sess: sess, lineage: lineage, body: body}, nil
	}
	var auto *wire.CheckRequest
	if cb, ok := body.(*checkBody); ok {
		auto = &cb.CheckRequest
	}
	sess, err := s.resolveSession(src, r.Header.Get(wire.HeaderToken), lineage, auto)
	if err != nil {
		return sessionCall{}, err
	}
	return sessionCall{sess: sess, lineage: lineage, body: body}, nil
}

// requestSources collects every session id the request carries and the
// set of sources that carry one.
func requestSources(r *http.Request, body sessionBody) (idSources, string, source) {
	src := idSources{URL: r.PathValue("session"), Query: r.URL.Query().Get("session"), Header: r.Header.Get(wire.HeaderSession)}
	client := ""
	if body != nil {
		src.Body, src.Env, client = body.sessionIDs()
	}
	var got source
	for _, p := range []struct {
		v   string
		src source
	}{{src.URL, srcURL}, {src.Query, srcQuery}, {src.Header, srcHeader}, {src.Body, srcBody}, {src.Env, srcEnv}, {client, srcClient}} {
		if p.v != "" {
			got |= p.src
		}
	}
	if ab, ok := body.(agentBody); ok && ab.agentProcess() {
		got |= srcAgent
	}
	return src, client, got
}
