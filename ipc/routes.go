package ipc

import (
	"net/http"

	"pathgrant/engine"
	"pathgrant/wire"
)

// The route table: every route of the API, one row each, and who may
// call it (its constructor): anyone, a session (named in the sources the
// row declares, resolved once by the engine), a capability, or the
// person.

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

// route is one API endpoint: a handler for routes that act for no session
// (open to anyone, or for the person only: servePerson), or a sessionRoute,
// whose handler Handler calls only with the session resolved from the
// sources the route declares.
type route struct {
	pattern string
	handle  http.HandlerFunc
	session *sessionRoute
	access  access // who may call it; set by the constructor of its row
	limit   int64  // the largest body the route reads; 0: maxBody
}

// acting declares a route that acts for a session named in sources.
func acting(pattern string, sources engine.Source, act sessionHandler) route {
	return route{pattern: pattern, session: &sessionRoute{sources: sources, act: act}, access: accessSession}
}

// withBody is acting for a route whose body is read (once) before the
// session resolves, because it may name the session.
func withBody(pattern string, sources engine.Source, body func() sessionBody, act sessionHandler) route {
	return route{pattern: pattern, session: &sessionRoute{sources: sources, body: body, act: act}, access: accessSession}
}

// ownSources are where a session's own view of its requests and grants
// takes its id: the URL, and the header that must agree with it.
const ownSources = engine.SrcURL | engine.SrcHeader

// checkSources are where a check may name its session besides the URL.
const checkSources = engine.SrcHeader | engine.SrcBody | engine.SrcEnv | engine.SrcClient

func (s *Server) routes() []route {
	return []route{
		anyone("GET /v1/health", s.handleHealth),
		anyone("POST /v1/sessions", s.handleRegister),
		acting("DELETE /v1/sessions/{session}", engine.SrcURL|engine.SrcHeader, s.handleEndSession),
		withBody("POST /v1/check", checkSources, newCheckBody, s.handleCheck),
		withBody("POST /s/{session}/v1/check", engine.SrcURL|checkSources, newCheckBody, s.handleCheck),
		acting("GET /v1/events", engine.SrcQuery|engine.SrcHeader, s.handleEvents),
		acting("GET /s/{session}/v1/events", engine.SrcURL|engine.SrcQuery|engine.SrcHeader, s.handleEvents),
		acting("GET /v1/policy", engine.SrcQuery|engine.SrcHeader, s.handlePolicy),
		acting("GET /s/{session}/v1/policy", engine.SrcURL|engine.SrcQuery|engine.SrcHeader, s.handlePolicy),
		capRoute("POST "+wire.PathExec, engine.CapExec, newExecBody, s.handleExec),
		capRoute("POST "+wire.PathReport, engine.CapReport, newReportBody, s.handleExecReport),
		capRoute("POST "+wire.PathHold, engine.CapHold, newHoldBody, s.handleHold),
		capRoute("POST "+wire.PathNet, engine.CapNet, newNetBody, s.handleNet),
		toolRoute("POST /v1/tools/{tool}", toolSources, s.handleTool),
		toolRoute("POST /s/{session}/v1/tools/{tool}", engine.SrcURL|toolSources, s.handleTool),
		acting("GET /s/{session}/v1/requests", ownSources, s.handleOwnRequests),
		acting("GET /s/{session}/v1/requests/{id}", ownSources, s.handleOwnRequest),
		acting("POST /s/{session}/v1/requests/{id}/deny", ownSources, s.handleOwnDeny),
		acting("GET /s/{session}/v1/grants", ownSources, s.handleOwnGrants),
		acting("DELETE /s/{session}/v1/grants/{id}", ownSources, s.handleOwnRevoke),
		acting("DELETE /s/{session}/v1/grants", ownSources, s.handleOwnRevokeAll),
		personOnly("GET /v1/requests", s.handleListRequests),
		personOnly("GET /v1/requests/{id}", s.handleGetRequest),
		personOnly("POST /v1/requests/{id}/decision", s.handleDecision),
		personOnly("GET /v1/grants", s.handleListGrants),
		personOnly("DELETE /v1/grants/{id}", s.handleRevoke),
		personOnly("DELETE /v1/sessions/{id}/grants", s.handleRevokeSession),
		personOnly("GET /v1/audit", s.handleAudit),
		personOnly("GET "+wire.PathSessions, s.handleListSessions),
		personOnly("GET "+wire.PathDenials, s.handleListDenials),
		personOnly("DELETE "+wire.PathDenials+"/{id}", s.handleLiftDenial),
		personOnly("POST "+wire.PathRaise, s.handleRaise),
	}
}

// anyone declares a route open to every caller on the socket.
func anyone(pattern string, h http.HandlerFunc) route {
	return route{pattern: pattern, handle: h, access: accessOpen}
}

// personOnly declares a route for the person alone: Handler refuses it to
// a caller under an agent before h runs (servePerson).
func personOnly(pattern string, h http.HandlerFunc) route {
	return route{pattern: pattern, handle: h, access: accessPerson}
}

// capRoute declares a route whose session comes from a capability of
// kind alone (the exec routes): no session id in any source.
func capRoute(pattern string, kind engine.CapKind, body func() sessionBody, act sessionHandler) route {
	rt := withBody(pattern, 0, body, act)
	rt.session.capability, rt.limit = kind, maxExecBody
	return rt
}

// maxExecBody bounds an exec route's body: it carries the front end's
// environment.
const maxExecBody = 1 << 20

// toolSources are where a tool call may name its session besides the URL:
// the header, the body, the client's PATHGRANT_SESSION, or (agent_process)
// the agent process the caller runs under. A client's own session id is
// not one: only a check can bind it.
const toolSources = engine.SrcHeader | engine.SrcBody | engine.SrcEnv | engine.SrcAgent

// toolRoute declares a tool route: withBody with room for a body of up
// to maxToolBody, since write_file carries the file's content.
func toolRoute(pattern string, sources engine.Source, act sessionHandler) route {
	rt := withBody(pattern, sources, newToolBody, act)
	rt.limit = maxToolBody
	return rt
}
