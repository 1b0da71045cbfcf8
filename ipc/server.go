package ipc

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"pathgrant/appdirs"
	"pathgrant/devicepolicy"
	"pathgrant/grants"
	"pathgrant/guard"
	"pathgrant/wire"
)

// Config wires a Server. Store and Device are required.
type Config struct {
	Store    *grants.Store
	Device   guard.DevicePolicy
	Home     string   // for `~` and for refusing over-broad workspaces
	Approver Approver // nil: requests wait for the CLI (headless)
	Logger   *slog.Logger
	Now      func() time.Time

	PendingTTL    time.Duration // an undecided request ends as deny-once (default 10 min)
	PendingCap    int           // pending requests per session (default 32)
	MaxWait       time.Duration // longest a check may wait for the user (default 5 min)
	SessionMaxAge time.Duration // default 24 h
	// Retention is how long ended sessions and audit records are kept
	// (default 90 days); older ones are pruned at start and daily.
	Retention time.Duration

	// Lineage reads a peer's whole process lineage; nil means /proc, read
	// lazily. Tests set it to play an agent and the user from one process;
	// an error is a lineage that cannot be read (treated as an agent's).
	Lineage func(pid int32) ([]lineageEntry, error)
	// ProcAlive reports whether a process still runs (same pid, same
	// start time); nil means /proc. Processes that sent checks stay
	// marked as agents until it says they are gone.
	ProcAlive func(Proc) bool

	// Abuse bounds; zero means the default.
	PendingTotal          int // pending requests on the device (default 4096)
	MaxConns              int // open connections (default 1024)
	MaxConnsPerPeer       int // open connections of one peer process (default 256)
	MaxSessions           int // live sessions of this user (default 1024)
	MaxSessionsPerProcess int // live sessions registered by, or bound to, one process (default 128)

	// Confinement is the machine's confinement level (sandbox.Probe's:
	// "bwrap+landlock", "landlock", "none"); "" counts as none. DeviceFile
	// is the device policy file in force (devicepolicy.Watcher.Policy);
	// nil means its defaults without extra roots. Together they decide
	// whether hooks rewrite shell commands to run confined.
	Confinement wire.Level
	DeviceFile  func() devicepolicy.Policy
	// Launcher prepares the sandbox of every agent command the daemon
	// confines: a hook's rewritten command, `pathgrant exec --session`,
	// and the tool routes' execute_shell_command, which the daemon runs
	// as its own child (sandbox.Launcher in the daemon; package ipc
	// cannot import it). nil refuses POST /v1/exec and every shell tool
	// call, so no such command runs.
	Launcher Launcher
	// HooksBelow says the server's own process also starts hooks and
	// launchers (a test that serves in process): registration then does
	// not count a process below the server as one of its tool calls'. The
	// daemon never sets it; the person-only routes ignore it.
	HooksBelow bool
	// Getenv is the daemon's environment, which moves pathgrant's own
	// folders and the agents' configuration homes that no session may be
	// registered over; nil means the process's.
	Getenv appdirs.Getenv
}

func (c Config) withDefaults() Config {
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.PendingTTL <= 0 {
		c.PendingTTL = 10 * time.Minute
	}
	if c.PendingCap <= 0 {
		c.PendingCap = 32
	}
	if c.MaxWait <= 0 {
		c.MaxWait = 5 * time.Minute
	}
	if c.SessionMaxAge <= 0 {
		c.SessionMaxAge = 24 * time.Hour
	}
	if c.Retention <= 0 {
		c.Retention = DefaultRetention
	}
	c.PendingTotal = orDefault(c.PendingTotal, 4096)
	c.MaxConns = orDefault(c.MaxConns, 1024)
	c.MaxConnsPerPeer = orDefault(c.MaxConnsPerPeer, 256)
	c.MaxSessions = orDefault(c.MaxSessions, 1024)
	c.MaxSessionsPerProcess = orDefault(c.MaxSessionsPerProcess, 128)
	if c.ProcAlive == nil {
		c.ProcAlive = procAlive
	}
	if home, err := (guard.Canonicalizer{}).Canonical(c.Home, "/", true); err == nil {
		c.Home = home
	}
	return c
}

// DefaultRetention is how long ended sessions and audit records are kept
// unless Config.Retention says otherwise.
const DefaultRetention = 90 * 24 * time.Hour

// pruneEvery is how often, by the server's clock, old sessions and audit
// records are pruned.
const pruneEvery = 24 * time.Hour

// maxBody bounds every request body but a tool call's; larger ones are
// refused unread.
const maxBody = 64 << 10

// maxToolBody bounds a tool call's body, which carries write_file's
// content.
const maxToolBody = 4 << 20

// Server is the daemon's local API.
type Server struct {
	cfg      Config
	log      *slog.Logger
	sessions *registry
	queue    *queue
	hub      *hub
	agents   *agentSet
	caps     *capStore
	procs    procWatcher // when bound processes exit (lifecycle.go)
	paused   atomic.Bool
	pruneDue time.Time  // the next prune, by cfg.Now; owned by Serve, then the sweeper
	decideMu sync.Mutex // one decision at a time: exactly one wins
	conns    *connLimiter
	admitMu  sync.Mutex // one session admission at a time, so the caps hold
	owners   *sessionOwners
	self     Proc // the daemon's own process: what its tool calls start runs below it

	ctx    context.Context // canceled on Shutdown: ends waits and event streams
	cancel context.CancelFunc
	http   *http.Server
	wg     sync.WaitGroup
}

// New returns a Server; call Serve to accept connections.
func New(cfg Config) *Server {
	procs := procWatcherFor(cfg)
	cfg = cfg.withDefaults()
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{
		cfg: cfg, log: cfg.Logger, sessions: newRegistry(cfg.Now), hub: newHub(), agents: newAgentSet(), caps: newCapStore(), procs: procs,
		queue: newQueue(cfg.PendingCap, cfg.PendingTotal, cfg.PendingTTL, cfg.Now), ctx: ctx, cancel: cancel,
		conns: newConnLimiter(cfg.MaxConns, cfg.MaxConnsPerPeer), owners: newSessionOwners(), self: selfProc(),
	}
	s.http = &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: 2 * time.Second,
		ReadTimeout:       10 * time.Second,
		IdleTimeout:       30 * time.Second,
		ConnContext:       withPeer,
		ConnState:         s.conns.state,
		BaseContext:       func(net.Listener) context.Context { return ctx },
		ErrorLog:          slog.NewLogLogger(cfg.Logger.Handler(), slog.LevelDebug),
	}
	return s
}

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
func acting(pattern string, sources source, act sessionHandler) route {
	return route{pattern: pattern, session: &sessionRoute{sources: sources, act: act}, access: accessSession}
}

// withBody is acting for a route whose body is read (once) before the
// session resolves, because it may name the session.
func withBody(pattern string, sources source, body func() sessionBody, act sessionHandler) route {
	return route{pattern: pattern, session: &sessionRoute{sources: sources, body: body, act: act}, access: accessSession}
}

// ownSources are where a session's own view of its requests and grants
// takes its id: the URL, and the header that must agree with it.
const ownSources = srcURL | srcHeader

func newCheckBody() sessionBody { return &checkBody{} }

// checkSources are where a check may name its session besides the URL.
const checkSources = srcHeader | srcBody | srcEnv | srcClient

func (s *Server) routes() []route {
	return []route{
		anyone("GET /v1/health", s.handleHealth),
		anyone("POST /v1/sessions", s.handleRegister),
		acting("DELETE /v1/sessions/{session}", srcURL|srcHeader, s.handleEndSession),
		withBody("POST /v1/check", checkSources, newCheckBody, s.handleCheck),
		withBody("POST /s/{session}/v1/check", srcURL|checkSources, newCheckBody, s.handleCheck),
		acting("GET /v1/events", srcQuery|srcHeader, s.handleEvents),
		acting("GET /s/{session}/v1/events", srcURL|srcQuery|srcHeader, s.handleEvents),
		acting("GET /v1/policy", srcQuery|srcHeader, s.handlePolicy),
		acting("GET /s/{session}/v1/policy", srcURL|srcQuery|srcHeader, s.handlePolicy),
		capRoute("POST "+wire.PathExec, capExec, newExecBody, s.handleExec),
		capRoute("POST "+wire.PathReport, capReport, newReportBody, s.handleExecReport),
		toolRoute("POST /v1/tools/{tool}", toolSources, s.handleTool),
		toolRoute("POST /s/{session}/v1/tools/{tool}", srcURL|toolSources, s.handleTool),
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
	s.prune()
	s.adoptSessions()
	s.wg.Add(1)
	go s.sweep()
	err := s.http.Serve(newAdmitListener(ln, s.conns, s.log))
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// Shutdown stops accepting, ends waiting checks (they answer deny) and
// event streams, and waits for handlers and the sweeper to return.
func (s *Server) Shutdown(ctx context.Context) error {
	s.cancel()
	err := s.http.Shutdown(ctx)
	s.wg.Wait()
	return err
}

// SetPaused turns prompts off (eligible denials are denied silently and
// audited) or back on.
func (s *Server) SetPaused(p bool) { s.paused.Store(p) }

// Pending lists the approval requests waiting for the user.
func (s *Server) Pending() []wire.Request { return s.queue.pending() }

func (s *Server) sweep() {
	defer s.wg.Done()
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-s.ctx.Done():
			return
		case <-t.C:
			for _, r := range s.queue.expire(time.Hour) {
				s.requestEnded(r, "approval request timed out: denied once")
			}
			s.agents.prune(s.cfg.ProcAlive)
			s.sessions.dropGone()
			if !s.now().Before(s.pruneDue) {
				s.prune()
			}
		}
	}
}

// prune removes ended sessions and audit records older than the
// retention (the store audits what it removed) and schedules the next.
func (s *Server) prune() {
	now := s.now()
	s.pruneDue = now.Add(pruneEvery)
	p, err := s.cfg.Store.Prune(now.Add(-s.cfg.Retention))
	if err != nil {
		s.log.Error("prune failed", "err", err)
		return
	}
	if p != (grants.Pruned{}) {
		s.log.Info("pruned", "sessions", p.Sessions, "audit_records", p.Records, "retention", s.cfg.Retention)
	}
}

func (s *Server) now() time.Time { return s.cfg.Now() }

func (s *Server) sessionLive(id string) bool {
	sess := s.sessions.get(id)
	return sess != nil && s.chainLive(sess)
}

// lineage returns the process lineage of the request's peer, one per
// connection (its peer never changes), read lazily and at most once.
func (s *Server) lineage(r *http.Request) *lineageOf {
	ci, ok := r.Context().Value(peerKey{}).(*connInfo)
	if !ok {
		return nil
	}
	ci.once.Do(func() {
		if s.cfg.Lineage != nil {
			ci.lineage = fixedLineage(s.cfg.Lineage(ci.peer.PID))
		} else {
			ci.lineage = peerLineage(ci.peer.PID, ci.pinnedStart())
		}
	})
	return ci.lineage
}

func orDefault(v, def int) int {
	if v <= 0 {
		return def
	}
	return v
}
