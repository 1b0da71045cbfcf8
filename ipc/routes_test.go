package ipc

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"pathgrant/engine"
	"pathgrant/grants"
	"pathgrant/guard"
	"pathgrant/wire"
)

// rawClient sends hand-made requests over the socket.
func rawClient(sock string) *http.Client {
	return &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", sock)
	}}, Timeout: 5 * time.Second}
}

func send(t *testing.T, c *http.Client, method, path string, hdr map[string]string, body any) (int, []byte) {
	t.Helper()
	return sendCtx(context.Background(), t, c, method, path, hdr, body)
}

// sendCtx is send within ctx: a request ctx cancels is status 0.
func sendCtx(ctx context.Context, t *testing.T, c *http.Client, method, path string, hdr map[string]string, body any) (int, []byte) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		data, _ := json.Marshal(body)
		rd = bytes.NewReader(data)
	}
	req, _ := http.NewRequestWithContext(ctx, method, "http://pathgrant"+path, rd)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := c.Do(req)
	if err != nil && ctx.Err() != nil {
		return 0, nil
	}
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	return resp.StatusCode, out
}

// routeCase says how the route walk calls one session route: the sources
// the route must declare, and for routes with a body, the body naming the
// session in its session_id, env_session and client_session, and asking
// for the agent process's session (agent_process) when agent is set.
type routeCase struct {
	sources engine.Source
	body    func(body, env, client string, agent bool) any
}

// sessionRequest builds a request to rt naming the session in the given
// sources. It reports false when rt has no place for one of them (no
// {session} in its path, or no body).
func sessionRequest(rt route, tc routeCase, ids map[engine.Source]string) (method, path string, hdr map[string]string, body any, ok bool) {
	method, path, _ = strings.Cut(rt.pattern, " ")
	path = strings.Replace(path, "{tool}", "read_file", 1) // the tool routes' other path values
	path = strings.Replace(path, "{id}", "no-such-id", 1)
	if v, set := ids[engine.SrcURL]; set {
		if !strings.Contains(path, "{session}") {
			return "", "", nil, nil, false
		}
		path = strings.Replace(path, "{session}", v, 1)
	}
	if v, set := ids[engine.SrcQuery]; set {
		path += "?session=" + url.QueryEscape(v)
	}
	hdr = map[string]string{}
	if v, set := ids[engine.SrcHeader]; set {
		hdr[wire.HeaderSession] = v
	}
	if v, set := ids[srcToken]; set {
		hdr[wire.HeaderToken] = v
	}
	_, b := ids[engine.SrcBody]
	_, e := ids[engine.SrcEnv]
	_, c := ids[engine.SrcClient]
	_, a := ids[engine.SrcAgent]
	if tc.body == nil && (b || e || c || a) {
		return "", "", nil, nil, false
	}
	if tc.body != nil {
		body = tc.body(ids[engine.SrcBody], ids[engine.SrcEnv], ids[engine.SrcClient], a)
	}
	return method, path, hdr, body, true
}

// srcToken is not a source: it carries the token in the walk's id maps.
const srcToken engine.Source = 1 << 7

// TestEveryRouteResolvesOneSession walks the route table: every route that
// acts for a session must declare where its id comes from, resolve it from
// each declared source (an unknown id there is 404, two sources naming
// different sessions 409), refuse an id in any undeclared source (400),
// refuse a missing, forged or stale identity, and act for exactly the
// session it resolved. A session route added to the table without a case
// here fails the test, and so does a changed declaration.
func TestEveryRouteResolvesOneSession(t *testing.T) {
	e := newTestEnv(t)
	live := e.register(wire.SessionRequest{Agent: "a"})
	other := e.register(wire.SessionRequest{Agent: "b"})
	ended := e.register(wire.SessionRequest{Agent: "c"})
	e.srv.Engine().End(ended.ID, grants.EndReasonSessionEnd)
	c := rawClient(e.sock)
	check := func(body, env, client string, agent bool) any {
		if agent { // a check body has no place for it: an unknown field is refused
			return map[string]any{"op": "read", "path": e.work + "/main.go", "session_id": body, "env_session": env,
				"client_session": client, "agent_process": true}
		}
		return wire.CheckRequest{Op: guard.OpRead, Path: e.work + "/main.go", SessionID: body, EnvSession: env, ClientSession: client}
	}
	tool := func(body, env, client string, agent bool) any {
		if client != "" { // a tool body has no place for it: an unknown field is refused
			return map[string]any{"session_id": body, "env_session": env, "client_session": client, "agent_process": agent,
				"args": map[string]any{"path": "main.go"}}
		}
		return wire.ToolRequest{SessionID: body, EnvSession: env, AgentProcess: agent, Args: json.RawMessage(`{"path": "main.go"}`)}
	}
	cases := map[string]routeCase{
		"DELETE /v1/sessions/{session}":     {sources: engine.SrcURL | engine.SrcHeader},
		"POST /v1/check":                    {sources: engine.SrcHeader | engine.SrcBody | engine.SrcEnv | engine.SrcClient, body: check},
		"POST /s/{session}/v1/check":        {sources: engine.SrcURL | engine.SrcHeader | engine.SrcBody | engine.SrcEnv | engine.SrcClient, body: check},
		"GET /v1/events":                    {sources: engine.SrcQuery | engine.SrcHeader},
		"GET /s/{session}/v1/events":        {sources: engine.SrcURL | engine.SrcQuery | engine.SrcHeader},
		"GET /v1/policy":                    {sources: engine.SrcQuery | engine.SrcHeader},
		"GET /s/{session}/v1/policy":        {sources: engine.SrcURL | engine.SrcQuery | engine.SrcHeader},
		"POST /v1/tools/{tool}":             {sources: engine.SrcHeader | engine.SrcBody | engine.SrcEnv | engine.SrcAgent, body: tool},
		"POST /s/{session}/v1/tools/{tool}": {sources: engine.SrcURL | engine.SrcHeader | engine.SrcBody | engine.SrcEnv | engine.SrcAgent, body: tool},
		// a session's own requests and grants (own.go)
		"GET /s/{session}/v1/requests":            {sources: engine.SrcURL | engine.SrcHeader},
		"GET /s/{session}/v1/requests/{id}":       {sources: engine.SrcURL | engine.SrcHeader},
		"POST /s/{session}/v1/requests/{id}/deny": {sources: engine.SrcURL | engine.SrcHeader},
		"GET /s/{session}/v1/grants":              {sources: engine.SrcURL | engine.SrcHeader},
		"DELETE /s/{session}/v1/grants/{id}":      {sources: engine.SrcURL | engine.SrcHeader},
		"DELETE /s/{session}/v1/grants":           {sources: engine.SrcURL | engine.SrcHeader},
	}
	for _, rt := range e.srv.routes() {
		if rt.session == nil {
			if strings.Contains(rt.pattern, "{session}") {
				t.Errorf("route %s has a {session} in its path but resolves no session", rt.pattern)
			}
			continue
		}
		if rt.session.capability != "" {
			t.Run(rt.pattern, func(t *testing.T) { walkCapabilityOnly(t, c, rt, live) })
			continue
		}
		tc, ok := cases[rt.pattern]
		if !ok {
			t.Errorf("route %s acts for a session but has no case in this test", rt.pattern)
			continue
		}
		t.Run(rt.pattern, func(t *testing.T) {
			if rt.session.sources != tc.sources {
				t.Fatalf("route declares %s, the test expects %s", rt.session.sources, tc.sources)
			}
			if hasURL := strings.Contains(rt.pattern, "{session}"); hasURL != (tc.sources&engine.SrcURL != 0) {
				t.Fatalf("a {session} in the path (%v) must be declared as the url source", hasURL)
			}
			walkSources(t, c, rt, tc, live, other)
			walkIdentity(t, c, rt, tc, live, other, ended)
		})
	}
}

// walkCapabilityOnly checks that a route whose session comes from a
// capability alone declares no other source, and refuses a request that
// names its session with an id and token, or names none, without one.
func walkCapabilityOnly(t *testing.T, c *http.Client, rt route, live wire.SessionResponse) {
	t.Helper()
	if rt.session.sources != 0 {
		t.Fatalf("route declares %s besides its capability", rt.session.sources)
	}
	method, path, _ := strings.Cut(rt.pattern, " ")
	for _, hdr := range []map[string]string{{wire.HeaderSession: live.ID, wire.HeaderToken: live.Token}, {}} {
		if st, out := send(t, c, method, path, hdr, map[string]any{}); st != http.StatusBadRequest {
			t.Errorf("no capability, headers %v: %d %s, want 400", hdr, st, out)
		}
	}
}

// walkSources checks every declared source is resolved and every
// undeclared one refused.
func walkSources(t *testing.T, c *http.Client, rt route, tc routeCase, live, other wire.SessionResponse) {
	t.Helper()
	do := func(ids map[engine.Source]string) int {
		method, path, hdr, body, ok := sessionRequest(rt, tc, ids)
		if !ok {
			t.Fatalf("cannot place %v in a request to %s", ids, rt.pattern)
		}
		st, _ := send(t, c, method, path, hdr, body)
		return st
	}
	declared := tc.sources.Kinds()
	for _, k := range declared {
		t.Run(k.String(), func(t *testing.T) {
			unknown := map[engine.Source]string{k: "unknown-session"}
			if tc.sources&engine.SrcURL != 0 {
				unknown[engine.SrcURL] = "unknown-session"
			}
			if st := do(unknown); st != http.StatusNotFound {
				t.Errorf("unknown session from %s: %d, want 404", k, st)
			}
			partner := declared[0]
			if partner == k {
				partner = declared[1]
			}
			if st := do(map[engine.Source]string{k: live.ID, partner: other.ID, srcToken: live.Token}); st != http.StatusConflict {
				t.Errorf("%s and %s disagree: %d, want 409", k, partner, st)
			}
		})
	}
	for _, src := range (^engine.Source(0)).Kinds() {
		if tc.sources&src != 0 {
			continue
		}
		ids := map[engine.Source]string{declared[0]: live.ID, src: live.ID, srcToken: live.Token}
		if _, _, _, _, ok := sessionRequest(rt, tc, ids); !ok {
			continue // this route has no place for it at all
		}
		if st := do(ids); st != http.StatusBadRequest {
			t.Errorf("session id in the undeclared %s source: %d, want 400", src, st)
		}
	}
	if tc.sources&engine.SrcURL == 0 {
		if st := do(map[engine.Source]string{}); st != http.StatusBadRequest {
			t.Errorf("no session: %d, want 400", st)
		}
	}
}

// walkIdentity checks forged and stale identities are refused and a good
// one acted for.
func walkIdentity(t *testing.T, c *http.Client, rt route, tc routeCase, live, other, ended wire.SessionResponse) {
	t.Helper()
	// every declared source but the client's own id names the session
	ids := func(id, tok string) map[engine.Source]string {
		m := map[engine.Source]string{srcToken: tok}
		for _, k := range tc.sources.Kinds() {
			if k != engine.SrcClient && k != engine.SrcAgent { // neither names a session by its id
				m[k] = id
			}
		}
		return m
	}
	do := func(m map[engine.Source]string) (int, []byte) {
		method, path, hdr, body, _ := sessionRequest(rt, tc, m)
		return send(t, c, method, path, hdr, body)
	}
	if st, _ := do(ids(live.ID, other.Token)); st != http.StatusForbidden {
		t.Errorf("forged: %d, want 403", st)
	}
	if st, _ := do(ids(ended.ID, ended.Token)); st != http.StatusGone {
		t.Errorf("stale: %d, want 410", st)
	}
	if (strings.HasPrefix(rt.pattern, "POST") && !strings.Contains(rt.pattern, "{id}")) || strings.Contains(rt.pattern, "policy") {
		st, out := do(ids(live.ID, live.Token))
		var ans struct{ Session string }
		if st != http.StatusOK || json.Unmarshal(out, &ans) != nil || ans.Session != live.ID {
			t.Errorf("resolved request answered %d %s, want 200 for session %s", st, out, live.ID)
		}
	}
}

// TestRequestLimits: oversize, malformed and unknown-field bodies are
// refused before anything is decided or granted.
func TestRequestLimits(t *testing.T) {
	e := newTestEnv(t)
	s := e.register(wire.SessionRequest{Agent: "a"})
	c := rawClient(e.sock)
	hdr := map[string]string{wire.HeaderSession: s.ID, wire.HeaderToken: s.Token}
	big := wire.CheckRequest{Command: "echo " + strings.Repeat("x", maxBody)}
	tests := []struct {
		name, method, path string
		body               any
		want               int
	}{
		// The registrations first: a check marks its sender as an agent,
		// which may then register only children of its session.
		{"unknown field in session", "POST", "/v1/sessions", map[string]any{"cwd": e.work, "workspace": []string{e.work}, "admin": true}, 400},
		{"workspace containing home", "POST", "/v1/sessions", wire.SessionRequest{Cwd: e.work, Workspace: []string{e.home}}, 403},
		{"relative cwd", "POST", "/v1/sessions", wire.SessionRequest{Cwd: "work", Workspace: []string{e.work}}, 400},
		{"unknown kind", "POST", "/v1/sessions", wire.SessionRequest{Cwd: e.work, Workspace: []string{e.work}, Kind: "root"}, 400},
		{"body over 64 KiB", "POST", "/v1/check", big, 413},
		{"malformed", "POST", "/v1/check", json.RawMessage(`{"command": `), 400},
		{"unknown field in check", "POST", "/v1/check", map[string]any{"command": "ls", "sudo": true}, 400},
		{"neither command nor path", "POST", "/v1/check", map[string]any{"op": "read"}, 400},
		{"unparsable shell", "POST", "/v1/check", wire.CheckRequest{Command: "cat 'x"}, 400},
		{"unknown route", "GET", "/v1/nope", nil, 404},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if st, out := send(t, c, tt.method, tt.path, hdr, tt.body); st != tt.want {
				t.Fatalf("%d %s, want %d", st, out, tt.want)
			}
		})
	}
}

// TestSlowClientCutOff: a client that never finishes its header is
// disconnected by the read-header timeout.
func TestSlowClientCutOff(t *testing.T) {
	e := newTestEnv(t)
	conn, err := net.Dial("unix", e.sock)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Write([]byte("POST /v1/check HTTP/1.1\r\nHost: x\r\n")); err != nil {
		t.Fatal(err)
	}
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	start := time.Now()
	n, err := conn.Read(make([]byte, 1024))
	if err == nil && n > 0 {
		// the server may answer 408 before closing; then the next read ends
		_, err = conn.Read(make([]byte, 1024))
	}
	if err == nil || time.Since(start) > 9*time.Second {
		t.Fatalf("slow client not cut off: %v after %v", err, time.Since(start))
	}
}
