package ipc

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"pathgrant/guard"
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
	var rd io.Reader
	if body != nil {
		data, _ := json.Marshal(body)
		rd = bytes.NewReader(data)
	}
	req, _ := http.NewRequest(method, "http://pathgrant"+path, rd)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	return resp.StatusCode, out
}

// TestEveryRouteResolvesOneSession walks the route table: every route that
// acts for a session must refuse conflicting, missing, forged and stale
// identities, and act for exactly the session it resolved. A route added to
// the table without a case here fails the test.
func TestEveryRouteResolvesOneSession(t *testing.T) {
	e := newTestEnv(t)
	live := e.register(SessionRequest{Agent: "a"})
	other := e.register(SessionRequest{Agent: "b"})
	ended := e.register(SessionRequest{Agent: "c"})
	e.srv.sessions.end(ended.ID)
	c := rawClient(e.sock)
	check := CheckRequest{Op: guard.OpRead, Path: e.work + "/main.go"}

	// path builds the route's URL for a session id; body its body.
	cases := map[string]struct {
		method    string
		path      func(id string) string
		body      func(id string) any
		urlBearer bool
	}{
		"DELETE /v1/sessions/{session}": {method: "DELETE", path: func(id string) string { return "/v1/sessions/" + id }, urlBearer: true},
		"POST /v1/check": {method: "POST", path: func(string) string { return "/v1/check" },
			body: func(id string) any { r := check; r.SessionID = id; return r }},
		"POST /s/{session}/v1/check": {method: "POST", path: func(id string) string { return "/s/" + id + "/v1/check" },
			body: func(string) any { return check }, urlBearer: true},
		"GET /v1/events":             {method: "GET", path: func(id string) string { return "/v1/events?session=" + id }},
		"GET /s/{session}/v1/events": {method: "GET", path: func(id string) string { return "/s/" + id + "/v1/events" }, urlBearer: true},
		"GET /v1/policy":             {method: "GET", path: func(id string) string { return "/v1/policy?session=" + id }},
		"GET /s/{session}/v1/policy": {method: "GET", path: func(id string) string { return "/s/" + id + "/v1/policy" }, urlBearer: true},
	}
	for _, rt := range e.srv.routes() {
		if !rt.session {
			continue
		}
		tc, ok := cases[rt.pattern]
		if !ok {
			t.Errorf("route %s acts for a session but has no case in this test", rt.pattern)
			continue
		}
		t.Run(rt.pattern, func(t *testing.T) {
			body := func(id string) any {
				if tc.body == nil {
					return nil
				}
				return tc.body(id)
			}
			hdr := func(id, tok string) map[string]string {
				return map[string]string{HeaderSession: id, HeaderToken: tok}
			}
			// conflict: the URL or body names one session, the header another
			if st, _ := send(t, c, tc.method, tc.path(live.ID), hdr(other.ID, other.Token), body(live.ID)); st != 409 {
				t.Errorf("conflict: %d, want 409", st)
			}
			if !tc.urlBearer {
				if st, _ := send(t, c, tc.method, tc.path(""), nil, body("")); st != 400 {
					t.Errorf("no session: %d, want 400", st)
				}
			}
			if st, _ := send(t, c, tc.method, tc.path(live.ID), hdr(live.ID, other.Token), body(live.ID)); st != 403 {
				t.Errorf("forged: %d, want 403", st)
			}
			if st, _ := send(t, c, tc.method, tc.path(ended.ID), hdr(ended.ID, ended.Token), body(ended.ID)); st != 410 {
				t.Errorf("stale: %d, want 410", st)
			}
			if tc.method == "POST" || strings.Contains(rt.pattern, "policy") {
				st, out := send(t, c, tc.method, tc.path(live.ID), hdr(live.ID, live.Token), body(live.ID))
				var ans struct{ Session string }
				if st != 200 || json.Unmarshal(out, &ans) != nil || ans.Session != live.ID {
					t.Errorf("resolved request answered %d %s, want 200 for session %s", st, out, live.ID)
				}
			}
		})
	}
}

// TestRequestLimits: oversize, malformed and unknown-field bodies are
// refused before anything is decided or granted.
func TestRequestLimits(t *testing.T) {
	e := newTestEnv(t)
	s := e.register(SessionRequest{Agent: "a"})
	c := rawClient(e.sock)
	hdr := map[string]string{HeaderSession: s.ID, HeaderToken: s.Token}
	big := CheckRequest{Command: "echo " + strings.Repeat("x", maxBody)}
	tests := []struct {
		name, method, path string
		body               any
		want               int
	}{
		{"body over 64 KiB", "POST", "/v1/check", big, 413},
		{"malformed", "POST", "/v1/check", json.RawMessage(`{"command": `), 400},
		{"unknown field in check", "POST", "/v1/check", map[string]any{"command": "ls", "sudo": true}, 400},
		{"neither command nor path", "POST", "/v1/check", map[string]any{"op": "read"}, 400},
		{"unparsable shell", "POST", "/v1/check", CheckRequest{Command: "cat 'x"}, 400},
		{"unknown field in session", "POST", "/v1/sessions", map[string]any{"cwd": e.work, "workspace": []string{e.work}, "admin": true}, 400},
		{"workspace containing home", "POST", "/v1/sessions", SessionRequest{Cwd: e.work, Workspace: []string{e.home}}, 400},
		{"relative cwd", "POST", "/v1/sessions", SessionRequest{Cwd: "work", Workspace: []string{e.work}}, 400},
		{"unknown kind", "POST", "/v1/sessions", SessionRequest{Cwd: e.work, Workspace: []string{e.work}, Kind: "root"}, 400},
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
