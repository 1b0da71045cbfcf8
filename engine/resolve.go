package engine

import (
	"crypto/subtle"
	"path/filepath"
	"strings"

	"pathgrant/grants"
	"pathgrant/wire"
)

// The resolver: the one place a request's session is decided, on every
// route and every transport. A request names its session in any of the
// sources its route declares (IDs, the one list of them); all that are
// present must agree, or it presents an exec capability that names the
// session itself. Every refusal is audited.

// Source is one place a request may name its session. Each session route
// declares the sources it takes; a request naming its session anywhere
// else is refused rather than having that id silently ignored.
type Source uint8

// The sources a session id may come from.
const (
	SrcURL    Source = 1 << iota // the path: /s/{session}/…, /v1/sessions/{session}
	SrcQuery                     // ?session=
	SrcHeader                    // the X-Session-ID header
	SrcBody                      // the body's session_id
	SrcEnv                       // the body's env_session (the hook's PATHGRANT_SESSION)
	SrcClient                    // the body's client_session (the agent client's own id)
	SrcAgent                     // the body's agent_process: the session bound to the caller's agent process
)

var sourceNames = []struct {
	src  Source
	name string
}{{SrcURL, "url"}, {SrcQuery, "query"}, {SrcHeader, "header"}, {SrcBody, "body"}, {SrcEnv, "env"}, {SrcClient, "client"}, {SrcAgent, "agent"}}

// String names the sources in s, "url|header" style.
func (s Source) String() string {
	var parts []string
	for _, n := range sourceNames {
		if s&n.src != 0 {
			parts = append(parts, n.name)
		}
	}
	return strings.Join(parts, "|")
}

// Kinds splits s into its single sources, in declaration order.
func (s Source) Kinds() []Source {
	var out []Source
	for _, n := range sourceNames {
		if s&n.src != 0 {
			out = append(out, n.src)
		}
	}
	return out
}

// IDs are every place a request named its session: the URL path
// (/s/{session}/...), the query (?session=), the X-Session-ID header, the
// body's session_id, the hook's PATHGRANT_SESSION (env_session), the
// agent client's own session id (client_session), and a tool call's ask
// for the session bound to its agent process.
type IDs struct {
	URL, Query, Header, Body, Env string
	Client                        string
	AgentProcess                  bool
}

// source is one id and where it came from.
type source struct {
	src Source
	v   string
}

// list is the one list of the places an id can come from, in the order
// they are named in refusals. The agent-process ask carries no id.
func (ids IDs) list() []source {
	return []source{{SrcURL, ids.URL}, {SrcQuery, ids.Query}, {SrcHeader, ids.Header}, {SrcBody, ids.Body},
		{SrcEnv, ids.Env}, {SrcClient, ids.Client}}
}

// Sources are the sources that carry an id.
func (ids IDs) Sources() Source {
	var got Source
	for _, p := range ids.list() {
		if p.v != "" {
			got |= p.src
		}
	}
	if ids.AgentProcess {
		got |= SrcAgent
	}
	return got
}

// naming are the ids that name a pathgrant session: all but the client's
// own id, which only a check binds to one.
func (ids IDs) naming() []source {
	var out []source
	for _, p := range ids.list() {
		if p.v != "" && p.src != SrcClient {
			out = append(out, p)
		}
	}
	return out
}

// named reports whether any id names a pathgrant session.
func (ids IDs) named() bool { return len(ids.naming()) > 0 }

// first is the first id naming a session, for the audit record of a
// refusal.
func (ids IDs) first() string {
	if n := ids.naming(); len(n) > 0 {
		return n[0].v
	}
	return ""
}

func (ids IDs) String() string {
	var parts []string
	for _, p := range ids.naming() {
		parts = append(parts, p.src.String()+"="+p.v)
	}
	return strings.Join(parts, " ")
}

// agree returns the one id all the ids naming a session name.
func (ids IDs) agree() (string, *Error) {
	id := ""
	for _, p := range ids.naming() {
		switch {
		case id == "":
			id = p.v
		case p.v != id:
			return "", errorf(Conflict, grants.KindConflict, "session ids disagree (%s): refusing to pick one", ids)
		}
	}
	if id == "" {
		return "", errorf(BadRequest, grants.KindConflict, "no session id: give it in the URL, the %s header, the body or PATHGRANT_SESSION", wire.HeaderSession)
	}
	return id, nil
}

// Ask is one request to resolve: the sources its route declares and the
// ids it carries, the session token it presents, the caller's process
// lineage, an exec capability and the command hash it is for (the exec
// routes, which take one: TakesCapability), and for a check its body,
// which may register a hook-only session on first sight.
type Ask struct {
	Route           string
	Declared        Source
	IDs             IDs
	Token           string
	Caller          *Lineage
	Capability      string
	CommandHash     string
	TakesCapability CapKind
	Check           *wire.CheckRequest
}

// Call is a resolved request: the session it acts for, its caller's
// lineage, and the capability it came with, if any. Only Resolve makes
// one, so no engine method can act for a session nobody resolved.
type Call struct {
	sess   *session
	caller *Lineage
	cap    *capEntry
}

// SessionID is the id of the session the call acts for.
func (c Call) SessionID() string { return c.sess.ID }

// Resolve decides which session a request acts for. A route that takes a
// capability takes nothing else (and a route that does not take one
// spends and refuses it); an id in a source the route does not declare is
// refused rather than ignored; then the ids must agree (resolveSession),
// or name the session bound to the caller's agent process (resolveAgent).
func (s *Engine) Resolve(a Ask) (Call, *Error) {
	switch {
	case a.Capability != "" && a.TakesCapability == "":
		s.caps.consume(a.Capability, "")
		return Call{}, s.refuse(errorf(BadRequest, grants.KindConflict, "this route does not take an exec capability"), "")
	case a.Capability != "":
		sess, e, err := s.resolveCapability(a)
		if err != nil {
			return Call{}, err
		}
		return Call{sess: sess, caller: a.Caller, cap: e}, nil
	case a.TakesCapability != "":
		return Call{}, s.refuse(errorf(BadRequest, grants.KindConflict, "%s takes a %s capability, not a session", a.Route, a.TakesCapability), "")
	}
	if extra := a.IDs.Sources() &^ a.Declared; extra != 0 {
		return Call{}, s.refuse(errorf(BadRequest, grants.KindConflict,
			"this route takes the session id from %s, not from %s", a.Declared, extra), firstNonEmpty(a.IDs.first(), a.IDs.Client))
	}
	var sess *session
	var err *Error
	if a.IDs.AgentProcess {
		sess, err = s.resolveAgent(a.IDs, a.Caller)
	} else {
		sess, err = s.resolveSession(a.IDs, a.Token, a.Caller, a.Check)
	}
	if err != nil {
		return Call{}, err
	}
	return Call{sess: sess, caller: a.Caller}, nil
}

// refuse audits a refusal that names session (or none) and returns it.
func (s *Engine) refuse(err *Error, session string) *Error {
	s.Audit(grants.Record{Kind: err.Kind, Session: session, Reason: err.Msg})
	return err
}

// resolveCapability resolves a request that presents a capability: it is
// consumed, must be of the route's kind, unexpired, issued for the
// command hash the request gives, for a live session; any session id the
// request also names must be that session. Every refusal is audited.
func (s *Engine) resolveCapability(a Ask) (*session, *capEntry, *Error) {
	kind, src := a.TakesCapability, a.IDs
	e, ok := s.caps.consume(a.Capability, kind)
	var err *Error
	switch {
	case !ok:
		err = errorf(Forbidden, grants.KindForged, "unknown or spent %s capability", kind)
	case e.kind != kind:
		err = errorf(Forbidden, grants.KindForged, "a %s capability is not valid for this route", e.kind)
	case !s.now().Before(e.expires):
		err = errorf(Forbidden, grants.KindStale, "%s capability expired", kind)
	case subtle.ConstantTimeCompare([]byte(a.CommandHash), []byte(e.command)) != 1:
		err = errorf(Forbidden, grants.KindForged, "%s capability was issued for another command", kind)
	case src.named():
		if id, aerr := src.agree(); aerr != nil {
			err = aerr
		} else if id != e.session {
			err = errorf(Conflict, grants.KindConflict, "the request names session %s but its exec capability is for another: refusing to pick one", id)
		}
	}
	var sess *session
	if err == nil {
		if sess = s.sessions.get(e.session); sess == nil || !s.chainLive(sess) {
			err = errorf(Gone, grants.KindStale, "session %s has ended or expired", e.session)
		}
	}
	if err != nil {
		if ok && e.kind == CapHold {
			s.caps.consume(a.Capability, "") // a hold ticket refused on its own route is spent too
		}
		s.Audit(grants.Record{Kind: err.Kind, Session: firstNonEmpty(e.session, src.URL, src.Query, src.Header), Reason: err.Msg})
		return nil, nil, err
	}
	return sess, &e, nil
}

// resolveSession is the one place a request's session is decided. A
// conflict between sources is 409, no source 400, an unknown session 404,
// an ended or expired one (or one whose parent ended) 410, and a session
// presented by anyone but its own binding 403. Every refusal is audited.
// When auto is a check request from a hook-only client with an absolute
// cwd, an unknown session is registered on first sight, bound to the
// requesting agent process.
func (s *Engine) resolveSession(src IDs, token string, lineage *Lineage, auto *wire.CheckRequest) (*session, *Error) {
	sess, err := s.lookupSession(src, token, lineage, auto)
	if err != nil {
		rec := grants.Record{Kind: err.Kind, Session: src.first(), Reason: err.Msg}
		if auto != nil {
			rec.Tool, rec.RequestID, rec.Workflow, rec.Agent = auto.Tool, auto.RequestID, auto.Workflow, auto.Agent
		}
		s.Audit(rec)
		return nil, err
	}
	return sess, nil
}

// resolveAgent resolves a request that asks for the session bound to the
// caller's agent process (see agentSession). Every other id the request
// carries must name that same session: an unknown one is 404, one that
// names another session, or any when the agent process has none, is a
// conflict (409), never settled by picking one. Every refusal is audited.
func (s *Engine) resolveAgent(src IDs, lineage *Lineage) (*session, *Error) {
	sess, err := s.lookupAgent(src, lineage)
	if err != nil {
		s.Audit(grants.Record{Kind: err.Kind, Session: src.first(), Reason: err.Msg})
		return nil, err
	}
	return sess, nil
}

func (s *Engine) lookupAgent(src IDs, lineage *Lineage) (*session, *Error) {
	named := src.named()
	id := ""
	if named {
		var err *Error
		if id, err = src.agree(); err != nil {
			return nil, err
		}
		if s.sessions.get(id) == nil {
			return nil, errorf(NotFound, grants.KindStale, "unknown session %s", id)
		}
	}
	sess, err := s.agentSession(lineage)
	switch {
	case err != nil && named && err.Code == NotFound:
		return nil, errorf(Conflict, grants.KindConflict,
			"the request names session %s but no session is bound to its agent process: refusing to pick one", id)
	case err != nil:
		return nil, err
	case named && sess.ID != id:
		return nil, errorf(Conflict, grants.KindConflict,
			"the request names session %s but its agent process is bound to %s: refusing to pick one", id, sess.ID)
	}
	return sess, nil
}

func (s *Engine) lookupSession(src IDs, token string, lineage *Lineage, auto *wire.CheckRequest) (*session, *Error) {
	id, err := s.sessionID(src, auto)
	if err != nil {
		return nil, err
	}
	sess := s.sessions.get(id)
	switch {
	case sess == nil && auto != nil && filepath.IsAbs(auto.Cwd):
		sess, err := s.registerHookSession(id, auto, lineage)
		if err != nil && err.Code == Gone && resumable(src, auto) {
			return s.resumeHookSession(auto, lineage)
		}
		return sess, err
	case sess != nil && !s.chainLive(sess) && sess.hookOnly() && resumable(src, auto):
		return s.resumeHookSession(auto, lineage)
	}
	switch {
	case sess == nil:
		return nil, errorf(NotFound, grants.KindStale, "unknown session %s", id)
	case !s.chainLive(sess):
		return nil, errorf(Gone, grants.KindStale, "session %s has ended or expired", id)
	case !sess.boundTo(token, lineage):
		return nil, errorf(Forbidden, grants.KindForged, "session %s is bound to another client", id)
	case auto != nil && auto.ClientSession != "" && !s.sessions.bindAlias(auto.ClientSession, id):
		return nil, aliasConflict(auto.ClientSession, id)
	}
	return sess, nil
}

// resumable reports whether a check may start a successor to an ended
// hook-only session: it names the session only through the client's own
// session id (no URL, header, body or PATHGRANT_SESSION), so the client is
// resuming its conversation (`claude --resume`) in a new agent process.
func resumable(src IDs, auto *wire.CheckRequest) bool {
	return auto != nil && auto.ClientSession != "" && !src.named() && filepath.IsAbs(auto.Cwd)
}

// resumeHookSession registers a new hook-only session for a client
// session id whose pathgrant session has ended, bound to the requesting
// agent process, and moves the client id over to it. Nothing carries
// over: the ended session's grants and requests stay ended, and its id is
// never revived.
func (s *Engine) resumeHookSession(auto *wire.CheckRequest, lineage *Lineage) (*session, *Error) {
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
func (s *Engine) sessionID(src IDs, auto *wire.CheckRequest) (string, *Error) {
	client := ""
	if auto != nil {
		client = auto.ClientSession
	}
	id, err := src.agree()
	switch {
	case err != nil && client != "" && err.Code == BadRequest:
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

func aliasConflict(client, id string) *Error {
	return errorf(Conflict, grants.KindConflict,
		"client session %s belongs to another session than %s: refusing to pick one", client, id)
}

// chainLive reports whether the session and all its parents are live: a
// child never outlives its parent.
func (s *Engine) chainLive(sess *session) bool {
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
