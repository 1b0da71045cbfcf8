package ipc

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"time"

	"pathgrant/engine"
	"pathgrant/wire"
)

// Config wires a Server: the engine's configuration (package engine),
// which also carries the connection bounds the server enforces.
type Config = engine.Config

// maxBody bounds every request body but a tool call's; larger ones are
// refused unread.
const maxBody = 64 << 10

// maxToolBody bounds a tool call's body, which carries write_file's
// content.
const maxToolBody = 4 << 20

// Server is the daemon's local API: the route table and thin handlers
// over the engine, which decides.
type Server struct {
	e     *engine.Engine
	log   *slog.Logger
	conns *connLimiter
	http  *http.Server
	// lineage reads a peer's lineage; nil means /proc (Config.Lineage).
	readLineage func(pid int32) ([]engine.LineageEntry, error)
}

// New returns a Server; call Serve to accept connections.
func New(cfg Config) *Server {
	e := engine.New(cfg)
	cfg = e.Config()
	s := &Server{e: e, log: cfg.Logger, conns: newConnLimiter(cfg.MaxConns, cfg.MaxConnsPerPeer), readLineage: cfg.Lineage}
	s.http = &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: 2 * time.Second,
		ReadTimeout:       10 * time.Second,
		IdleTimeout:       30 * time.Second,
		ConnContext:       withPeer,
		ConnState:         s.conns.state,
		BaseContext:       func(net.Listener) context.Context { return e.Context() },
		ErrorLog:          slog.NewLogLogger(cfg.Logger.Handler(), slog.LevelDebug),
	}
	return s
}

// Engine is the engine the server serves.
func (s *Server) Engine() *engine.Engine { return s.e }

// route is one API endpoint: a handler for routes that act for no session
// (open to anyone, or for the person only: access.go), or a sessionRoute,
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

func newCheckBody() sessionBody { return &checkBody{} }

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
	}
}

// Handler returns the API with peer checks in front of every route. A
// session route's handler is reached only through serveSession, so no
// route can act for a session it did not resolve; a person-only route's
// only through servePerson, so none is served to a caller under an agent.
// A route that declares neither nor open is served as person-only.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	for _, rt := range s.routes() {
		h := rt.handle
		switch {
		case rt.session != nil:
			h = s.serveSession(rt.session)
		case rt.access != accessOpen:
			h = s.servePerson(rt.pattern, h)
		}
		mux.Handle(rt.pattern, limitBody(h, cmp.Or(rt.limit, maxBody)))
	}
	return s.checkPeer(refuseDuplicates(mux))
}

// Serve accepts connections on ln, within the connection bounds, until
// Shutdown. It first raises the open-file limit, prunes what is past
// retention, and runs the sweeper that ends approval requests nobody
// decided in time and prunes again each day.
func (s *Server) Serve(ln net.Listener) error {
	if err := raiseFileLimit(); err != nil {
		s.log.Warn("cannot raise the open-file limit", "err", err)
	}
	s.e.Start()
	err := s.http.Serve(newAdmitListener(ln, s.conns, s.log))
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// Shutdown stops accepting, ends waiting checks (they answer deny) and
// event streams, and waits for handlers and the sweeper to return.
func (s *Server) Shutdown(ctx context.Context) error {
	s.e.Stop()
	err := s.http.Shutdown(ctx)
	s.e.Wait()
	return err
}

// lineage returns the process lineage of the request's peer, one per
// connection (its peer never changes), read lazily and at most once.
func (s *Server) lineage(r *http.Request) *engine.Lineage {
	ci, ok := r.Context().Value(peerKey{}).(*connInfo)
	if !ok {
		return nil
	}
	ci.once.Do(func() {
		if s.readLineage != nil {
			ci.lineage = engine.FixedLineage(s.readLineage(ci.peer.PID))
		} else {
			ci.lineage = engine.PeerLineage(ci.peer.PID, ci.pinnedStart())
		}
	})
	return ci.lineage
}
