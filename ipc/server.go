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
