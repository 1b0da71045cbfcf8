package ipc

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"sync"
	"time"

	"pathgrant/grants"
	"pathgrant/guard"
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

// capKind is what a capability is for: the route that takes it.
type capKind string

const (
	capExec   capKind = "exec"
	capReport capKind = "report"
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
	kind    capKind
	session string
	command string        // launch.CommandHash of the text it was issued for
	used    []guard.Scope // the grants the hook's check used (a once grant is spent by then)
	// outside keeps the paths, of those a failed command named, that lie
	// outside the view it ran in (report tickets).
	outside func(paths []string) []string
	expires time.Time
}

// capStore holds outstanding capabilities by the hash of their secret,
// each kind bounded on its own: a day of unused report tickets never
// pushes out the exec capability of a command about to start.
type capStore struct {
	mu   sync.Mutex
	caps map[capKind]map[[32]byte]capEntry
}

func newCapStore() *capStore { return &capStore{caps: map[capKind]map[[32]byte]capEntry{}} }

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
// right or wrong.
func (cs *capStore) consume(secret string) (capEntry, bool) {
	hash := sha256.Sum256([]byte(secret))
	cs.mu.Lock()
	defer cs.mu.Unlock()
	for _, caps := range cs.caps {
		if e, ok := caps[hash]; ok {
			delete(caps, hash)
			return e, true
		}
	}
	return capEntry{}, false
}

// execInfo says how an allowed shell command of sess is to run, and for a
// caller that asked (req.ExecCommand) issues the capability its rewritten
// command presents.
func (s *Server) execInfo(sess *session, req wire.CheckRequest, ans wire.Answer) *wire.ExecInfo {
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
	info.Capability = s.caps.issue(capEntry{kind: capExec, session: sess.ID, command: wire.CommandHash(req.ExecCommand), used: used,
		expires: s.now().Add(CapabilityTTL)}, s.now())
	return info
}

// confinementLevel is the machine's level, or LevelOff when the device
// policy turns confinement off. An unknown level counts as none.
func (s *Server) confinementLevel() wire.Level {
	switch {
	case !s.deviceFile().Confinement:
		return wire.LevelOff
	case s.cfg.Confinement.Unconfined():
		return wire.LevelNone
	}
	return s.cfg.Confinement
}

// maxExecBody bounds an exec route's body: it carries the front end's
// environment.
const maxExecBody = 1 << 20

// capRoute declares a route whose session comes from a capability of
// kind alone (the exec routes): no session id in any source.
func capRoute(pattern string, kind capKind, body func() sessionBody, act sessionHandler) route {
	rt := withBody(pattern, 0, body, act)
	rt.session.capability, rt.limit = kind, maxExecBody
	return rt
}

// resolveCapabilityCall resolves a session route's request that presents
// a capability. The capability is spent whatever happens; a route that
// does not take one refuses it (400), so it is never an identity for a
// check, a decision, events or a tool.
func (s *Server) resolveCapabilityCall(sr *sessionRoute, r *http.Request, body sessionBody) (sessionCall, *apiError) {
	if sr.capability == "" {
		s.caps.consume(r.Header.Get(wire.HeaderCapability))
		err := errorf(http.StatusBadRequest, grants.KindConflict, "this route does not take an exec capability")
		s.audit(grants.Record{Kind: err.kind, Reason: err.msg})
		return sessionCall{}, err
	}
	src, _, _ := requestSources(r, body)
	sess, e, err := s.resolveCapability(sr.capability, src, r)
	if err != nil {
		return sessionCall{}, err
	}
	return sessionCall{sess: sess, lineage: s.lineage(r), body: body, cap: e}, nil
}

// resolveCapability resolves a request that presents a capability: it is
// consumed, must be of the route's kind, unexpired, issued for the
// command hash the request gives, for a live session; any session id the
// request also names must be that session. Every refusal is audited.
func (s *Server) resolveCapability(kind capKind, src idSources, r *http.Request) (*session, *capEntry, *apiError) {
	e, ok := s.caps.consume(r.Header.Get(wire.HeaderCapability))
	var err *apiError
	switch {
	case !ok:
		err = errorf(http.StatusForbidden, grants.KindForged, "unknown or spent %s capability", kind)
	case e.kind != kind:
		err = errorf(http.StatusForbidden, grants.KindForged, "a %s capability is not valid for this route", e.kind)
	case !s.now().Before(e.expires):
		err = errorf(http.StatusForbidden, grants.KindStale, "%s capability expired", kind)
	case subtle.ConstantTimeCompare([]byte(r.Header.Get(wire.HeaderCommandHash)), []byte(e.command)) != 1:
		err = errorf(http.StatusForbidden, grants.KindForged, "%s capability was issued for another command", kind)
	case src != idSources{}:
		if id, aerr := src.agree(); aerr != nil {
			err = aerr
		} else if id != e.session {
			err = errorf(http.StatusConflict, grants.KindConflict, "the request names session %s but its exec capability is for another: refusing to pick one", id)
		}
	}
	var sess *session
	if err == nil {
		if sess = s.sessions.get(e.session); sess == nil || !s.chainLive(sess) {
			err = errorf(http.StatusGone, grants.KindStale, "session %s has ended or expired", e.session)
		}
	}
	if err != nil {
		s.audit(grants.Record{Kind: err.kind, Session: firstNonEmpty(e.session, src.URL, src.Query, src.Header), Reason: err.msg})
		return nil, nil, err
	}
	return sess, &e, nil
}

// Confinement is the confinement agents' shell commands get now:
// "bwrap+landlock", "landlock", LevelOff or LevelNone. The tray and the
// prompt show it, so "unconfined" is said wherever the person looks.
func (s *Server) Confinement() wire.Level { return s.confinementLevel() }

// unconfinedWhy says that an allowed shell command runs unconfined, and
// why.
func unconfinedWhy(level wire.Level) string {
	if level == wire.LevelOff {
		return "UNCONFINED: the device policy turns confinement off, so the command runs without it"
	}
	return "UNCONFINED: this machine cannot confine commands (no Landlock), so the command runs without it"
}
