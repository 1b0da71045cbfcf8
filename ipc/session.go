package ipc

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"pathgrant/guard"
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
	Ended    bool

	roots     guard.SessionPolicy // canonical
	tokenHash [32]byte            // set for sessions registered with a token
	agent     Proc                // set for sessions bound to a process lineage
	policy    *guard.Compiled
}

// Live reports whether the session may still be used at now.
func (s *session) Live(now time.Time) bool {
	return !s.Ended && now.Before(s.Expires)
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

// boundTo reports whether the requester is the session's own: it holds the
// token, or (for hook-only sessions) its process lineage holds the agent
// the session was first seen from.
func (s *session) boundTo(token string, lineage *lineageOf) bool {
	if s.tokenHash != ([32]byte{}) {
		return s.tokenMatches(token)
	}
	isAgent := func(e lineageEntry) bool { return e.Proc == s.agent }
	lin := lineage.upTo(func(got []lineageEntry) bool { return len(got) > 0 && isAgent(got[len(got)-1]) })
	return slices.ContainsFunc(lin, isAgent)
}

// registry holds the daemon's sessions.
type registry struct {
	mu       sync.RWMutex
	sessions map[string]*session
	aliases  map[string]string // client's own session id -> session id
}

func newRegistry() *registry {
	return &registry{sessions: map[string]*session{}, aliases: map[string]string{}}
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

func (r *registry) end(id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	s, ok := r.sessions[id]
	if !ok || s.Ended {
		return false
	}
	s.Ended = true
	return true
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
		return KindInteractive, nil
	case KindInteractive, KindBackground, KindScheduled:
		return k, nil
	}
	return "", fmt.Errorf("unknown session kind %q (want interactive, background or scheduled)", k)
}

// checkRoots refuses canonical workspace roots so broad that they would swallow the
// home folder (and with it Downloads and every secret in it).
func checkRoots(roots []string, home string) error {
	if len(roots) == 0 {
		return errors.New("a session needs at least one workspace root")
	}
	for _, r := range roots {
		if home != "" && guard.Within(r, home) {
			return fmt.Errorf("workspace root %s contains the home folder: too broad", r)
		}
	}
	return nil
}
