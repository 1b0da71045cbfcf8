package ipc

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"

	"pathgrant/grants"
	"pathgrant/guard"
)

// A caller under an agent can only register sessions bounded by the
// agent's own: a child of it (POST /v1/sessions naming it, or one of its
// descendants, as parent; within() bounds the child's roots), or a
// hook-only session whose roots lie inside it. Otherwise an agent could
// mint itself a session over any other project and have the daemon read
// and write there for it.

// registeringAgent reports whether the caller of a registration runs
// under an agent process, and the agent's sessions (comma-separated, ""
// when its lineage cannot be read: such a caller is treated as an agent
// of no session, which bounds nothing it could register).
func (s *Server) registeringAgent(r *http.Request) (session string, agent bool) {
	return s.lineageAgent(s.lineage(r))
}

// lineageAgent is registeringAgent for a lineage already in hand (a
// hook's first check).
func (s *Server) lineageAgent(l *lineageOf) (session string, agent bool) {
	lin, readable := l.whole()
	if !readable {
		return "", true
	}
	return s.agents.holds(lin)
}

// agentParent refuses a POST /v1/sessions from under an agent whose
// parent is not one of the agent's sessions or below one.
func (s *Server) agentParent(r *http.Request, parent *session) *apiError {
	held, agent := s.registeringAgent(r)
	if !agent {
		return nil
	}
	ids := strings.Split(held, ",")
	for p := parent; p != nil; p = p.Parent {
		if held != "" && slices.Contains(ids, p.ID) {
			return nil
		}
	}
	if held == "" {
		return errorf(http.StatusForbidden, grants.KindForged,
			"refused: the caller's process lineage cannot be read, so it may be an agent; register sessions from your own terminal")
	}
	return errorf(http.StatusForbidden, grants.KindForged,
		"refused: the caller runs under an agent of session %s, so it may only register a child of that session", held)
}

// agentBounds refuses a hook-only session sess, first seen from lineage,
// when lineage holds an agent process none of whose sessions holds all of
// sess's roots. The client opening a new session in the same project
// (a cleared conversation) stays within its old one's.
func (s *Server) agentBounds(l *lineageOf, sess *session) *apiError {
	held, agent := s.lineageAgent(l)
	if !agent {
		return nil
	}
	if held != "" {
		for _, id := range strings.Split(held, ",") {
			if own, ok := s.heldRoots(id); ok && within(sess.roots, own) == nil {
				return nil
			}
		}
	}
	return errorf(http.StatusForbidden, grants.KindForged,
		"refused: session %s is first seen from under an agent of session %q, and its roots lie outside that session's", sess.ID, held)
}

// heldRoots are the roots of an agent's session: from the registry, or,
// once an ended session is dropped from it, from the store's record of
// it, so that ending its sessions does not free an agent of their bounds.
func (s *Server) heldRoots(id string) (guard.SessionPolicy, bool) {
	if own := s.sessions.get(id); own != nil {
		return own.roots, true
	}
	rec, err := s.cfg.Store.Session(id)
	var spec sessionSpec
	if err != nil || json.Unmarshal(rec.Spec, &spec) != nil {
		return guard.SessionPolicy{}, false
	}
	return guard.SessionPolicy{Cwd: spec.Cwd, Workspace: spec.Workspace, ReadOnly: spec.ReadOnly}, true
}
