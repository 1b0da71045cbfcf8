package engine

import (
	"cmp"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"pathgrant/grants"
	"pathgrant/guard"
	"pathgrant/wire"
)

// session is a registered session as the daemon holds it. Its id, once
// resolved, is the one used for policy, grants, cwd, environment, audit and
// notifications.
type session struct {
	ID       string
	Agent    string
	Workflow string
	Kind     string
	Parent   *session
	Cwd      string
	Env      map[string]string // never logged, audited or published
	Expires  time.Time
	Started  time.Time // when it registered, by the engine's clock (kept across a restart); labels it for a person

	roots     guard.SessionPolicy // canonical
	tokenHash [32]byte            // set for sessions registered with a token
	agent     Proc                // set for sessions bound to a process lineage
	launcher  Proc                // set for token sessions that end with their launcher
	// policy is the guard's policy under the device policy in force
	// (Server.compiled).
	policy    livePolicy
	ended     atomic.Bool      // read by every request, set once by whatever ends it
	endReason grants.EndReason // why it ended; written before ended is set, under the registry's lock
	endedAt   time.Time        // when it ended, by the registry's clock; under the registry's lock
}

// bound is the process the session ends with: the agent of a hook-only
// session, or the launcher of one registered to end with it; zero for
// none.
func (s *session) bound() Proc {
	if s.agent != (Proc{}) {
		return s.agent
	}
	return s.launcher
}

// Live reports whether the session may still be used at now.
func (s *session) Live(now time.Time) bool {
	return !s.ended.Load() && now.Before(s.Expires)
}

// tokenMatches compares in constant time; a lineage-bound session has no
// token and matches none.
func (s *session) tokenMatches(token string) bool {
	if s.tokenHash == ([32]byte{}) || token == "" {
		return false
	}
	h := sha256.Sum256([]byte(token))
	return subtle.ConstantTimeCompare(h[:], s.tokenHash[:]) == 1
}

// hookOnly reports whether the session was registered on first sight by a
// hook, bound to its agent process, rather than by a launcher with a token.
func (s *session) hookOnly() bool {
	return s.tokenHash == ([32]byte{}) && s.Parent == nil
}

// boundTo reports whether the requester is the session's own: it holds the
// token; or it presents none and its process lineage holds the launcher a
// token session ends with (`pathgrant run`: a client may strip the token
// from what it starts, as Gemini CLI does for MCP servers, and every
// descendant of the launcher already inherits the token); or, for
// hook-only sessions, its lineage holds the agent the session was first
// seen from. A wrong token is never made up for by the lineage.
func (s *session) boundTo(token string, lineage *Lineage) bool {
	if s.tokenHash != ([32]byte{}) {
		if token != "" || s.launcher == (Proc{}) {
			return s.tokenMatches(token)
		}
		return lineageHolds(lineage, s.launcher)
	}
	return lineageHolds(lineage, s.agent)
}

// lineageHolds reports whether p is in the requester's process lineage;
// a lineage that cannot be read holds nothing.
func lineageHolds(lineage *Lineage, p Proc) bool {
	if p == (Proc{}) {
		return false
	}
	is := func(e LineageEntry) bool { return e.Proc == p }
	lin := lineage.upTo(func(got []LineageEntry) bool { return len(got) > 0 && is(got[len(got)-1]) })
	return slices.ContainsFunc(lin, is)
}

// registry holds the daemon's sessions: the live ones, and those that
// ended or expired until dropGone lets them go.
type registry struct {
	mu       sync.RWMutex
	now      func() time.Time
	maxGone  int // ended sessions held within GoneGrace at most (Config.MaxGone)
	sessions map[string]*session
	aliases  map[string]string             // client's own session id -> session id
	watches  map[string]context.CancelFunc // session id -> stops the watch on its bound process
}

func newRegistry(now func() time.Time, held int) *registry {
	return &registry{now: now, maxGone: held, sessions: map[string]*session{}, aliases: map[string]string{}, watches: map[string]context.CancelFunc{}}
}

// alias returns the session a client session id is bound to.
func (r *registry) alias(client string) (string, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	id, ok := r.aliases[client]
	return id, ok
}

// aliasFree reports whether client may be (or is) bound to id.
func (r *registry) aliasFree(client, id string) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if bound, ok := r.aliases[client]; ok {
		return bound == id
	}
	_, taken := r.sessions[client]
	return !taken || client == id
}

// bindAlias binds a client session id to session id on first sight; a
// client id already bound elsewhere, or naming another session, is a
// conflict.
func (r *registry) bindAlias(client, id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if bound, ok := r.aliases[client]; ok {
		return bound == id
	}
	if _, ok := r.sessions[client]; ok && client != id {
		return false
	}
	r.aliases[client] = id
	return true
}

// rebindAlias binds a client session id to a successor session, whatever
// it was bound to before (see resumeHookSession).
func (r *registry) rebindAlias(client, id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.aliases[client] = id
}

func (r *registry) get(id string) *session {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.sessions[id]
}

// add stores s unless a session with its id exists: ids are never reused.
func (r *registry) add(s *session) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.sessions[s.ID]; ok {
		return errSessionExists
	}
	r.sessions[s.ID] = s
	return nil
}

// boundSessionAge is how far ahead a session bound to a process expires:
// never, in practice (the store wants a time, and one past 2262 would not
// fit its index). Such a session ends when its process exits, however
// long that takes, so "until the session ends" means that.
const boundSessionAge = 100 * 365 * 24 * time.Hour

// uncap lifts the age cap (Config.SessionMaxAge, 24 h by default) of a
// session bound to a process, the agent of a hook-only session or the
// launcher it ends with: the daemon watches that process and ends the
// session when it exits. A session bound to nothing (a token session
// registered without end_with_launcher) keeps the cap, and says so
// (ageCap). Called when a new session is admitted, before the store
// records it; an adopted session keeps the expiry the store has for it.
func (s *session) uncap() {
	if s.endsWithProcess() && s.Expires.Before(s.Started.Add(boundSessionAge)) {
		s.Expires = s.Started.Add(boundSessionAge)
	}
}

// ageCap is when s ends at the latest whatever its agent does, or
// zero when it ends only with its process (see uncap): what a person is
// told beside "until the session ends" (wire.Request.SessionExpires).
func (s *session) ageCap() time.Time {
	if s.endsWithProcess() {
		return time.Time{}
	}
	return s.Expires
}

// endsWithProcess reports whether s ends with a process the daemon
// watches: its own, or one a session it runs under is bound to (a child
// ends with its parent).
func (s *session) endsWithProcess() bool {
	for p := s; p != nil; p = p.Parent {
		if p.bound() != (Proc{}) {
			return true
		}
	}
	return false
}

func (r *registry) end(id string) bool { return r.endFor(id, grants.EndReasonSessionEnd) }

// endFor marks the session ended for why and stops the watch on its
// process. It reports whether this call ended it.
func (r *registry) endFor(id string, why grants.EndReason) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if stop, ok := r.watches[id]; ok {
		stop()
		delete(r.watches, id)
	}
	s, ok := r.sessions[id]
	if !ok || s.ended.Load() {
		return false
	}
	s.endReason, s.endedAt = why, r.now()
	s.ended.Store(true)
	return true
}

// Ended and expired sessions are kept in memory for GoneGrace, so that a
// late request naming one is told it ended (410) rather than that it is
// unknown, and at most Config.MaxGone of them (DefaultMaxGone), so that ending sessions in bulk
// cannot grow the daemon. Dropping one revives nothing: the store
// remembers every session it started, and refuses to start an ended or
// expired id again until retention prunes it.
const (
	GoneGrace      = 10 * time.Minute
	DefaultMaxGone = 1024
)

// dropGone forgets the sessions that ended or expired more than GoneGrace
// ago, and the oldest ended ones beyond maxGone, with the client session
// ids bound to them and the watches on their processes. It returns the
// ids it dropped, so what else lives with a session (its remembered
// denials and refusal counts) goes too.
func (r *registry) dropGone() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	cutoff := r.now().Add(-GoneGrace)
	var ended []*session
	var dropped []string
	for id, s := range r.sessions {
		switch {
		case s.ended.Load() && s.endedAt.Before(cutoff), !s.ended.Load() && s.Expires.Before(cutoff):
			r.forget(id)
			dropped = append(dropped, id)
		case s.ended.Load():
			ended = append(ended, s)
		}
	}
	if len(ended) > r.maxGone {
		slices.SortFunc(ended, func(a, b *session) int { return a.endedAt.Compare(b.endedAt) })
		for _, s := range ended[:len(ended)-r.maxGone] {
			r.forget(s.ID)
			dropped = append(dropped, s.ID)
		}
	}
	if len(dropped) > 0 {
		r.dropAliases()
	}
	return dropped
}

// list describes every session the registry holds, live or ended, oldest
// first.
func (r *registry) list() []wire.SessionInfo {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]wire.SessionInfo, 0, len(r.sessions))
	for _, s := range r.sessions {
		info := wire.SessionInfo{ID: s.ID, Agent: s.Agent, Workflow: s.Workflow, Kind: s.Kind, Cwd: s.Cwd,
			Workspace: slices.Clone(s.roots.Workspace), Started: s.Started}
		if s.ended.Load() {
			info.Ended = s.endedAt
		}
		out = append(out, info)
	}
	slices.SortFunc(out, func(a, b wire.SessionInfo) int {
		return cmp.Or(a.Started.Compare(b.Started), strings.Compare(a.ID, b.ID))
	})
	return out
}

// Sessions lists the sessions the daemon holds (live, and ended ones
// within GoneGrace), for the person: the settings window labels grants,
// requests and denials with them.
func (s *Engine) Sessions() []wire.SessionInfo { return s.sessions.list() }

// held is how many sessions the registry holds, live or not.
func (r *registry) held() int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.sessions)
}

// forget drops one session and stops the watch on its process. Called
// with mu held.
func (r *registry) forget(id string) {
	if stop, ok := r.watches[id]; ok {
		stop()
		delete(r.watches, id)
	}
	delete(r.sessions, id)
}

// dropAliases forgets the client session ids bound to sessions no longer
// held. Called with mu held.
func (r *registry) dropAliases() {
	for client, id := range r.aliases {
		if _, ok := r.sessions[id]; !ok {
			delete(r.aliases, client)
		}
	}
}

// reason is why the session ended ("" while it lives).
func (s *session) reason() grants.EndReason {
	if !s.ended.Load() {
		return ""
	}
	return s.endReason
}

// watching records how to stop the watch on a session's process; a
// session that already ended stops it at once.
func (r *registry) watching(id string, stop context.CancelFunc) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if s, ok := r.sessions[id]; !ok || s.ended.Load() {
		stop()
		return
	}
	r.watches[id] = stop
}

// children returns the sessions whose parent is id.
func (r *registry) children(id string) []*session {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var out []*session
	for _, s := range r.sessions {
		if s.Parent != nil && s.Parent.ID == id {
			out = append(out, s)
		}
	}
	return out
}

var errSessionExists = errors.New("session exists")

func newToken() (token string, hash [32]byte) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic(fmt.Sprintf("crypto/rand: %v", err)) // the kernel's RNG never fails on Linux
	}
	token = hex.EncodeToString(b)
	return token, sha256.Sum256([]byte(token))
}

func newID() string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		panic(fmt.Sprintf("crypto/rand: %v", err))
	}
	return hex.EncodeToString(b)
}

// validKind returns the kind with the default applied, or an error.
func validKind(k string) (string, error) {
	switch k {
	case "":
		return wire.KindInteractive, nil
	case wire.KindInteractive, wire.KindBackground, wire.KindScheduled:
		return k, nil
	}
	return "", fmt.Errorf("unknown session kind %q (want interactive, background or scheduled)", k)
}

// checkRoots refuses a session without a workspace root. What the roots
// may not reach (the home folder, secrets, pathgrant's own folders) is
// checkBounds'.
func checkRoots(roots []string) error {
	if len(roots) == 0 {
		return errors.New("a session needs at least one workspace root")
	}
	return nil
}
