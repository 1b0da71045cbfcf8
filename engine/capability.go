package engine

import (
	"cmp"
	"crypto/sha256"
	"sync"
	"time"

	"pathgrant/guard"
	"pathgrant/sandbox/launch"
	"pathgrant/wire"
)

// An exec capability lets the one shell command a hook rewrote to run
// confined act as its session for exactly one thing: having its sandbox
// prepared (POST /v1/exec), once, within CapabilityTTL. It is what makes
// hook-only sessions (no `pathgrant run`, so no session token in the
// agent's environment) confinable without ever handing the long-lived
// token to a command line. The answer carries a report ticket, the same
// kind of secret for one other thing: explaining, once, the paths that
// command was refused (POST /v1/exec/report). Neither is valid for a
// check, a decision, events or any other route: a route takes only the
// kind it declares (takesCapability).

// CapKind is what a capability is for: the route that takes it.
type CapKind string

const (
	CapExec   CapKind = "exec"
	CapReport CapKind = "report"
	// CapHold is a command's hold ticket (PathHold, hold.go): the one
	// kind presented more than once, for the opens of that command, and
	// spent like any other when presented to another route.
	CapHold CapKind = "hold"
	// CapNet is a command's net ticket (PathNet, network.go): its front
	// end hands the daemon the way out of the command's network
	// namespace with it, once.
	CapNet CapKind = "net"
)

// CapabilityTTL is how long an exec capability stays usable: the time
// between a hook's answer and its client starting the command.
// ReportTTL is how long a report ticket does: the command's run.
const (
	CapabilityTTL = 60 * time.Second
	ReportTTL     = 24 * time.Hour
)

// maxCapabilities bounds the outstanding capabilities of each kind; the
// one closest to expiry is dropped past it (its command then fails
// closed, or its refusals go unexplained).
const maxCapabilities = 4096

// capEntry is one outstanding capability.
type capEntry struct {
	kind    CapKind
	session string
	command string        // launch.CommandHash of the text it was issued for
	used    []guard.Scope // the grants the hook's check used (a once grant is spent by then)
	// outside keeps the paths, of those a failed command named, that lie
	// outside the view it ran in (report tickets).
	outside func(paths []string) []string
	// roots are a hold ticket's approvable roots: the only paths it may
	// ask about.
	roots []string
	// denied are the paths whose read the person denied in the check the
	// exec capability was issued with: its command's held opens of them
	// are refused at once, never asked again.
	denied []string
	// holder is the front end process a hold or report ticket was issued
	// to: the only one that may present it.
	holder Proc
	// check is the owed check a report ticket's command ends with, and
	// served its held-open token (served.go).
	check   string
	served  string
	expires time.Time
	// clock is an exec capability's purpose and client clock (clock.go),
	// handed on to its command's hold ticket and served roots.
	clock toolClock
}

// capStore holds outstanding capabilities by the hash of their secret,
// each kind bounded on its own: a day of unused report tickets never
// pushes out the exec capability of a command about to start.
type capStore struct {
	mu   sync.Mutex
	caps map[CapKind]map[[32]byte]capEntry
}

func newCapStore() *capStore { return &capStore{caps: map[CapKind]map[[32]byte]capEntry{}} }

// issue returns a new capability for e, dropping expired ones of its kind
// (and, past maxCapabilities, the one closest to expiry).
func (cs *capStore) issue(e capEntry, now time.Time) string {
	secret, hash := newToken()
	cs.mu.Lock()
	defer cs.mu.Unlock()
	caps := cs.caps[e.kind]
	if caps == nil {
		caps = map[[32]byte]capEntry{}
		cs.caps[e.kind] = caps
	}
	var soonest [32]byte
	for k, c := range caps {
		if !now.Before(c.expires) {
			delete(caps, k)
		} else if soonest == ([32]byte{}) || c.expires.Before(caps[soonest].expires) {
			soonest = k
		}
	}
	if len(caps) >= maxCapabilities {
		delete(caps, soonest)
	}
	caps[hash] = e
	return secret
}

// consume takes the capability out of the store, whatever its kind and
// whatever comes next: a capability is spent by its first presentation,
// right or wrong; a hold ticket presented to the route that takes one
// (route CapHold) alone stays.
func (cs *capStore) consume(secret string, route CapKind) (capEntry, bool) {
	hash := sha256.Sum256([]byte(secret))
	cs.mu.Lock()
	defer cs.mu.Unlock()
	for _, caps := range cs.caps {
		if e, ok := caps[hash]; ok {
			if e.kind != CapHold || route != CapHold {
				delete(caps, hash)
			}
			return e, true
		}
	}
	return capEntry{}, false
}

// revoke drops capability e (found by a route that refused it).
func (cs *capStore) revoke(e *capEntry) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	for k, c := range cs.caps[e.kind] {
		if c.session == e.session && c.command == e.command && c.holder == e.holder && c.expires.Equal(e.expires) {
			delete(cs.caps[e.kind], k)
		}
	}
}

// execInfo says how an allowed shell command of sess is to run, and for a
// caller that asked (req.ExecCommand) issues the capability its rewritten
// command presents.
func (s *Engine) execInfo(sess *session, req wire.CheckRequest, ans wire.Answer) *wire.ExecInfo {
	level := s.confinementLevel()
	info := &wire.ExecInfo{Level: level, Confine: !level.Unconfined()}
	switch {
	case req.ExecCommand == "":
		return info
	case req.ExecAnyway: // the Launcher decides how it runs, off included
		if level == wire.LevelNone {
			return info
		}
	case ans.Decision != guard.Allow || !info.Confine:
		return info
	}
	used := s.usedScopes(ans.Grants)
	var denied []string
	if r, ok := s.Request(ans.Pending); ans.Pending != "" && ok && r.State == wire.StateDenied {
		denied = []string{r.Path}
	}
	info.Capability = s.caps.issue(capEntry{kind: CapExec, session: sess.ID, command: launch.CommandHash(req.ExecCommand), used: used,
		denied: denied, clock: clockOf(req, cmp.Or(req.Agent, sess.Agent), s.now()), expires: s.now().Add(CapabilityTTL)}, s.now())
	return info
}

// confinementLevel is the machine's level, or LevelOff when the device
// policy turns confinement off. An unknown level counts as none.
func (s *Engine) confinementLevel() wire.Level {
	switch {
	case !s.deviceFile().Confinement:
		return wire.LevelOff
	case s.cfg.Confinement.Unconfined():
		return wire.LevelNone
	}
	return s.cfg.Confinement
}

// Confinement is the confinement agents' shell commands get now:
// "bwrap+landlock", "landlock", LevelOff or LevelNone. The tray and the
// prompt show it, so "unconfined" is said wherever the person looks.
func (s *Engine) Confinement() wire.Level { return s.confinementLevel() }

// unconfinedWhy says that an allowed shell command runs unconfined, and
// why.
func unconfinedWhy(level wire.Level) string {
	if level == wire.LevelOff {
		return "UNCONFINED: the device policy turns confinement off, so the command runs without it"
	}
	return "UNCONFINED: this machine cannot confine commands (no Landlock), so the command runs without it"
}
