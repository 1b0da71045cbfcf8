package engine

import (
	"context"
	"log/slog"
	"pathgrant/appdirs"
	"pathgrant/devicepolicy"
	"pathgrant/grants"
	"pathgrant/guard"
	"pathgrant/wire"
	"sync"
	"sync/atomic"
	"time"
)

// Config wires an Engine (and the Server of package ipc that serves it). Store and Device are required. Device holds the
// protected paths no session may write; its eligible roots are used only
// without a DeviceFile (with one, the file's are, read at each check).
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

	// Lineage reads a peer's whole process lineage; nil means /proc, read
	// lazily. Tests set it to play an agent and the user from one process;
	// an error is a lineage that cannot be read (treated as an agent's).
	Lineage func(pid int32) ([]LineageEntry, error)
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
	MaxGone               int // ended sessions held in memory within their grace (default 1024)

	// Confinement is the machine's confinement level (sandbox.Probe's:
	// "bwrap+landlock", "landlock", "none"); "" counts as none. DeviceFile
	// is the device policy file in force (watch.Watcher.Policy), read at
	// every use: the guard's eligible roots and allow_protected, the
	// confinement switch, what confined commands reach, and the audit's
	// retention. nil means its defaults, with Device's eligible roots and
	// no extra roots.
	Confinement wire.Level
	DeviceFile  func() devicepolicy.Policy
	// Launcher prepares the sandbox of every agent command the daemon
	// confines: a hook's rewritten command, `pathgrant exec --session`,
	// and the tool routes' execute_shell_command, which the daemon runs
	// as its own child (sandbox.Launcher in the daemon; package ipc
	// cannot import it). nil refuses POST /v1/exec and every shell tool
	// call, so no such command runs.
	Launcher Launcher
	// Held is the held-open file system the Launcher's views bind the
	// approvable roots from (its HeldView): nil where it is not mounted,
	// and then a Launch that serves roots is refused.
	Held HeldServer
	// HooksBelow says the server's own process also starts hooks and
	// launchers (a test that serves in process): registration then does
	// not count a process below the server as one of its tool calls'. The
	// daemon never sets it; the person-only routes ignore it.
	HooksBelow bool
	// Getenv is the daemon's environment, which moves pathgrant's own
	// folders and the agents' configuration homes that no session may be
	// registered over; nil means the process's.
	Getenv appdirs.Getenv
	// Raise asks the daemon's app to show a view (wire.ViewInbox,
	// wire.ViewSettings), starting it when none runs, for POST
	// /v1/app/raise: `pathgrant app`, `pathgrant settings`, the autostart
	// entry. nil: the daemon has no window (headless); ErrNoWindow: none
	// now (no display for it).
	Raise func(view string) error
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
	c.PendingTotal = orDefault(c.PendingTotal, 4096)
	c.MaxConns = orDefault(c.MaxConns, 1024)
	c.MaxConnsPerPeer = orDefault(c.MaxConnsPerPeer, 256)
	c.MaxSessions = orDefault(c.MaxSessions, 1024)
	c.MaxSessionsPerProcess = orDefault(c.MaxSessionsPerProcess, 128)
	c.MaxGone = orDefault(c.MaxGone, DefaultMaxGone)
	if c.ProcAlive == nil {
		c.ProcAlive = procAlive
	}
	if home, err := (guard.Canonicalizer{}).Canonical(c.Home, "/", true); err == nil {
		c.Home = home
	}
	return c
}

// pruneEvery is how often, by the server's clock, old sessions and audit
// records are pruned.
const pruneEvery = 24 * time.Hour

// Engine is the daemon's decisions, apart from any transport: sessions
// and the one resolver, checks, approvals and their codes, exec
// capabilities, the tools it runs, and the events it publishes. Package
// ipc serves it over HTTP on the socket; the app calls it in process.
type Engine struct {
	cfg       Config
	log       *slog.Logger
	sessions  *registry
	queue     *queue
	denials   *denialSet
	refusals  *refusals
	hub       *hub
	agents    *agentSet
	caps      *capStore
	holds     *heldCount
	netLines  *endLines   // each command's connection refusals (network.go)
	heldLines *endLines   // each served command's refused opens (served.go)
	procs     procWatcher // when bound processes exit (lifecycle.go)
	paused    atomic.Bool
	pruneDue  time.Time  // the next prune, by cfg.Now; owned by Start, then the sweeper
	prunedAt  int        // the retention, in days, of the last prune; owned as pruneDue
	decideMu  sync.Mutex // one decision at a time: exactly one wins
	admitMu   sync.Mutex // one session admission at a time, so the caps hold
	owners    *sessionOwners
	owed      *owedChecks  // the checks after confined commands (afterrun.go)
	views     sync.RWMutex // views made under R, placeholders removed under W (placeholders.go)
	self      Proc         // the daemon's own process: what its tool calls start runs below it

	// toolCommands numbers the commands the daemon's own tool calls run,
	// each the one asker of its held opens (heldOpens)
	toolCommands atomic.Uint64

	ctx    context.Context // canceled by Stop: ends waits and event streams
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// New returns an Engine; Start runs its sweeper.
func New(cfg Config) *Engine {
	procs := procWatcherFor(cfg)
	cfg = cfg.withDefaults()
	ctx, cancel := context.WithCancel(context.Background())
	return &Engine{
		cfg: cfg, log: cfg.Logger, sessions: newRegistry(cfg.Now, cfg.MaxGone), hub: newHub(), agents: newAgentSet(), caps: newCapStore(), holds: newHeldCount(), procs: procs,
		queue: newQueue(cfg.PendingCap, cfg.PendingTotal, cfg.PendingTTL, cfg.Now), denials: newDenialSet(), refusals: newRefusals(), netLines: newEndLines(), heldLines: newEndLines(), ctx: ctx, cancel: cancel,
		owners: newSessionOwners(), owed: newOwedChecks(), self: selfProc(),
	}
}

// Config is the engine's configuration, defaults filled in.
func (s *Engine) Config() Config { return s.cfg }

// Context is canceled by Stop: waits for a decision and event streams end
// with it.
func (s *Engine) Context() context.Context { return s.ctx }

// Start prunes what is past retention, adopts the sessions the store kept
// from an earlier run and their remembered denials, takes over the checks it owed after commands, and
// runs the sweeper that ends approval requests
// nobody decided in time and prunes again each day.
func (s *Engine) Start() {
	s.prune()
	s.adoptSessions()
	s.loadDenials()
	s.resumeOwed()
	s.wg.Add(1)
	go s.sweep()
}

// Stop ends waiting checks (they answer deny) and event streams, and the
// sweeper; Wait waits for the sweeper and the session watchers.
func (s *Engine) Stop() { s.cancel() }

// Wait waits for what Start started to return, after Stop.
func (s *Engine) Wait() { s.wg.Wait() }

// SetPaused turns prompts off (eligible denials are denied silently and
// audited) or back on.
func (s *Engine) SetPaused(p bool) { s.paused.Store(p) }

func (s *Engine) sweep() {
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
			s.holds.forget(s.now())
			for _, id := range s.sessions.dropGone() {
				s.forgetSession(id)
			}
			if !s.now().Before(s.pruneDue) || s.retentionDays() != s.prunedAt {
				s.prune()
			}
		}
	}
}

// prune removes ended sessions and audit records older than the
// retention of the device policy in force (the store audits what it
// removed) and schedules the next. The sweeper also prunes at once when a
// reload changes the retention.
func (s *Engine) prune() {
	now, days := s.now(), s.retentionDays()
	s.pruneDue, s.prunedAt = now.Add(pruneEvery), days
	retention := time.Duration(days) * 24 * time.Hour
	p, err := s.cfg.Store.Prune(now.Add(-retention))
	if err != nil {
		s.log.Error("prune failed", "err", err)
		return
	}
	if p != (grants.Pruned{}) {
		s.log.Info("pruned", "sessions", p.Sessions, "audit_records", p.Records, "retention_days", days)
	}
}

// retentionDays is the device policy's retention_days in force; a value
// below one (never from a file, which is refused) keeps the default.
func (s *Engine) retentionDays() int {
	if d := s.deviceFile().RetentionDays; d >= 1 {
		return d
	}
	return devicepolicy.DefaultRetentionDays
}

func (s *Engine) now() time.Time { return s.cfg.Now() }

// SessionLive reports whether session id and all its parents are live.
func (s *Engine) SessionLive(id string) bool {
	sess := s.sessions.get(id)
	return sess != nil && s.chainLive(sess)
}

// Health is the daemon's state for GET /v1/health.
func (s *Engine) Health() wire.Health {
	return wire.Health{OK: true, Pending: len(s.queue.pending()), Paused: s.paused.Load(), Confinement: s.confinementLevel(),
		FailedChecks: s.owed.failed()}
}

// Self is the daemon's own process: what its tool calls start runs below
// it.
func (s *Engine) Self() Proc { return s.self }

// LiveSessions counts the live sessions, registered and hook-only: what
// MaxSessions bounds.
func (s *Engine) LiveSessions() int { return len(s.owners.live(s.SessionLive)) }

// HeldSessions counts the sessions held in memory, ended ones within
// their grace included: what Config.MaxGone bounds.
func (s *Engine) HeldSessions() int { return s.sessions.held() }

// End ends session id (and its children) for why, as its own end, its
// launcher's exit or its agent's would; it returns how many grants ended
// with it. An unknown session is NotFound.
func (s *Engine) End(id string, why grants.EndReason) (int, error) {
	sess := s.sessions.get(id)
	if sess == nil {
		return 0, errorf(NotFound, "", "unknown session %s", id)
	}
	return s.endSession(sess, why)
}

// EndReason is why session id ended ("" while it is live or unknown); a
// child ended with its parent reads EndReasonParentEnded.
func (s *Engine) EndReason(id string) grants.EndReason {
	sess := s.sessions.get(id)
	if sess == nil || s.chainLive(sess) {
		return ""
	}
	return sess.reason()
}

// MarkAgent remembers the agent chain of lineage l as session's agent, as
// a check or a tool call from it would.
func (s *Engine) MarkAgent(l *Lineage, session string) { s.markAgent(l, session) }

func orDefault(v, def int) int {
	if v <= 0 {
		return def
	}
	return v
}
