package ipc

import (
	"net/http"
	"path/filepath"
	"strings"

	"pathgrant/grants"
	"pathgrant/wire"
)

// idSources are every place a request can name its session: the URL path
// (/s/{session}/...), the query (?session=), the X-Session-ID header, the
// body's session_id and the client's PATHGRANT_SESSION. All that are present
// must agree.
type idSources struct {
	URL, Query, Header, Body, Env string
}

func (src idSources) String() string {
	var parts []string
	for _, p := range []struct{ name, v string }{{"url", src.URL}, {"query", src.Query}, {"header", src.Header}, {"body", src.Body}, {"env", src.Env}} {
		if p.v != "" {
			parts = append(parts, p.name+"="+p.v)
		}
	}
	return strings.Join(parts, " ")
}

// agree returns the one id all present sources name.
func (src idSources) agree() (string, *apiError) {
	id := ""
	for _, v := range []string{src.URL, src.Query, src.Header, src.Body, src.Env} {
		switch {
		case v == "":
		case id == "":
			id = v
		case v != id:
			return "", errorf(http.StatusConflict, grants.KindConflict, "session ids disagree (%s): refusing to pick one", src)
		}
	}
	if id == "" {
		return "", errorf(http.StatusBadRequest, grants.KindConflict, "no session id: give it in the URL, the %s header, the body or PATHGRANT_SESSION", wire.HeaderSession)
	}
	return id, nil
}

// resolveSession is the one place a request's session is decided. A
// conflict between sources is 409, no source 400, an unknown session 404,
// an ended or expired one (or one whose parent ended) 410, and a session
// presented by anyone but its own binding 403. Every refusal is audited.
// When auto is a check request from a hook-only client with an absolute
// cwd, an unknown session is registered on first sight, bound to the
// requesting agent process.
func (s *Server) resolveSession(src idSources, token string, lineage *lineageOf, auto *wire.CheckRequest) (*session, *apiError) {
	sess, err := s.lookupSession(src, token, lineage, auto)
	if err != nil {
		rec := grants.Record{Kind: err.kind, Session: firstNonEmpty(src.URL, src.Query, src.Header, src.Body, src.Env), Reason: err.msg}
		if auto != nil {
			rec.Tool, rec.RequestID, rec.Workflow, rec.Agent = auto.Tool, auto.RequestID, auto.Workflow, auto.Agent
		}
		s.audit(rec)
		return nil, err
	}
	return sess, nil
}

// resolveAgent resolves a request that asks for the session bound to the
// caller's agent process (see agentSession). Every other id the request
// carries must name that same session: an unknown one is 404, one that
// names another session, or any when the agent process has none, is a
// conflict (409), never settled by picking one. Every refusal is audited.
func (s *Server) resolveAgent(src idSources, lineage *lineageOf) (*session, *apiError) {
	sess, err := s.lookupAgent(src, lineage)
	if err != nil {
		s.audit(grants.Record{Kind: err.kind, Session: firstNonEmpty(src.URL, src.Query, src.Header, src.Body, src.Env), Reason: err.msg})
		return nil, err
	}
	return sess, nil
}

func (s *Server) lookupAgent(src idSources, lineage *lineageOf) (*session, *apiError) {
	named := src != idSources{}
	id := ""
	if named {
		var err *apiError
		if id, err = src.agree(); err != nil {
			return nil, err
		}
		if s.sessions.get(id) == nil {
			return nil, errorf(http.StatusNotFound, grants.KindStale, "unknown session %s", id)
		}
	}
	sess, err := s.agentSession(lineage)
	switch {
	case err != nil && named && err.status == http.StatusNotFound:
		return nil, errorf(http.StatusConflict, grants.KindConflict,
			"the request names session %s but no session is bound to its agent process: refusing to pick one", id)
	case err != nil:
		return nil, err
	case named && sess.ID != id:
		return nil, errorf(http.StatusConflict, grants.KindConflict,
			"the request names session %s but its agent process is bound to %s: refusing to pick one", id, sess.ID)
	}
	return sess, nil
}

func (s *Server) lookupSession(src idSources, token string, lineage *lineageOf, auto *wire.CheckRequest) (*session, *apiError) {
	id, err := s.sessionID(src, auto)
	if err != nil {
		return nil, err
	}
	sess := s.sessions.get(id)
	switch {
	case sess == nil && auto != nil && filepath.IsAbs(auto.Cwd):
		sess, err := s.registerHookSession(id, auto, lineage)
		if err != nil && err.status == http.StatusGone && resumable(src, auto) {
			return s.resumeHookSession(auto, lineage)
		}
		return sess, err
	case sess != nil && !s.chainLive(sess) && sess.hookOnly() && resumable(src, auto):
		return s.resumeHookSession(auto, lineage)
	}
	switch {
	case sess == nil:
		return nil, errorf(http.StatusNotFound, grants.KindStale, "unknown session %s", id)
	case !s.chainLive(sess):
		return nil, errorf(http.StatusGone, grants.KindStale, "session %s has ended or expired", id)
	case !sess.boundTo(token, lineage):
		return nil, errorf(http.StatusForbidden, grants.KindForged, "session %s is bound to another client", id)
	case auto != nil && auto.ClientSession != "" && !s.sessions.bindAlias(auto.ClientSession, id):
		return nil, aliasConflict(auto.ClientSession, id)
	}
	return sess, nil
}

// resumable reports whether a check may start a successor to an ended
// hook-only session: it names the session only through the client's own
// session id (no URL, header, body or PATHGRANT_SESSION), so the client is
// resuming its conversation (`claude --resume`) in a new agent process.
func resumable(src idSources, auto *wire.CheckRequest) bool {
	return auto != nil && auto.ClientSession != "" && src == (idSources{}) && filepath.IsAbs(auto.Cwd)
}

// resumeHookSession registers a new hook-only session for a client
// session id whose pathgrant session has ended, bound to the requesting
// agent process, and moves the client id over to it. Nothing carries
// over: the ended session's grants and requests stay ended, and its id is
// never revived.
func (s *Server) resumeHookSession(auto *wire.CheckRequest, lineage *lineageOf) (*session, *apiError) {
	sess, err := s.registerHookSession(newID(), auto, lineage)
	if err != nil {
		return nil, err
	}
	s.sessions.rebindAlias(auto.ClientSession, sess.ID)
	return sess, nil
}

// sessionID is the id the sources agree on, checked against the client's
// own session id: a client id bound to another session is a conflict. A
// request that carries only a client id belongs to the session that id is
// bound to, or (first sight) to a session of that id.
func (s *Server) sessionID(src idSources, auto *wire.CheckRequest) (string, *apiError) {
	client := ""
	if auto != nil {
		client = auto.ClientSession
	}
	id, err := src.agree()
	switch {
	case err != nil && client != "" && err.status == http.StatusBadRequest:
		if bound, ok := s.sessions.alias(client); ok {
			return bound, nil
		}
		return client, nil
	case err != nil:
		return "", err
	case client != "" && !s.sessions.aliasFree(client, id):
		return "", aliasConflict(client, id)
	}
	return id, nil
}

func aliasConflict(client, id string) *apiError {
	return errorf(http.StatusConflict, grants.KindConflict,
		"client session %s belongs to another session than %s: refusing to pick one", client, id)
}

// chainLive reports whether the session and all its parents are live: a
// child never outlives its parent.
func (s *Server) chainLive(sess *session) bool {
	now := s.now()
	for p := sess; p != nil; p = p.Parent {
		if !p.Live(now) {
			return false
		}
	}
	return true
}

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}
