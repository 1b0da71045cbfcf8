package engine

import (
	"slices"

	"pathgrant/grants"
	"pathgrant/guard"
)

// A caller under an agent can only register sessions bounded by the
// agent's own: a child of it (POST /v1/sessions naming it, or one of its
// descendants, as parent; within() bounds the child's roots), or a
// hook-only session whose roots lie inside one it had. Otherwise an agent
// could mint itself a session over any other project and have the daemon
// read and write there for it. Who counts as an agent is judgeLineage's
// answer, the same as for the person-only routes: a marked process, one
// the daemon's tools started, or a lineage that cannot be read.

// agentParent refuses a POST /v1/sessions from under an agent whose
// parent is not one of the agent's sessions or below one.
func (s *Engine) agentParent(l *Lineage, parent *session) *Error {
	v := s.judgeLineage(l, !s.cfg.HooksBelow)
	if v.why == "" {
		return nil
	}
	lin, _ := l.Whole()
	for p := parent; p != nil && v.session != ""; p = p.Parent {
		if s.agents.holdsSession(lin, p.ID) {
			return nil
		}
	}
	return errorf(Forbidden, grants.KindForged,
		"refused: the caller %s, so it may only register a child of its own session", v.why)
}

// agentBounds refuses a hook-only session sess, first seen from lineage,
// when lineage holds an agent none of whose sessions' roots hold all of
// sess's. The client opening a new session in the same project (a
// cleared conversation) stays within its old one's.
func (s *Engine) agentBounds(l *Lineage, sess *session) *Error {
	v := s.judgeLineage(l, !s.cfg.HooksBelow)
	if v.why == "" {
		return nil
	}
	lin, _ := l.Whole()
	if roots, ok := s.agents.rootsOf(lin); ok && slices.ContainsFunc(roots, func(own guard.SessionPolicy) bool {
		return within(sess.roots, own) == nil
	}) {
		return nil
	}
	return errorf(Forbidden, grants.KindForged,
		"refused: session %s is first seen from a caller that %s, and its roots lie outside that agent's sessions", sess.ID, v.why)
}
