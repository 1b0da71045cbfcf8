package ipc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"pathgrant/apiclient"
	"pathgrant/engine"
	"pathgrant/engine/boundstest"
	"pathgrant/grants"
	"pathgrant/guard"
	"pathgrant/tools"
	"pathgrant/wire"
)

// boundsEnv is a daemon configured as the real one is (DefaultDevicePolicy
// from an environment) on a boundstest.Layout.
type boundsEnv struct {
	*testEnv
	layout     boundstest.Layout
	pid        atomic.Int32
	unreadable atomic.Bool // peers' lineages cannot be read
}

func newBoundsEnv(t testing.TB) *boundsEnv {
	b := &boundsEnv{}
	b.pid.Store(20000)
	b.testEnv = newTestEnv(t, func(c *Config) {
		b.layout = boundstest.NewLayout(t, filepath.Dir(c.Home))
		c.Getenv = b.layout.Getenv
		d := engine.DefaultDevicePolicy(c.Getenv, c.Home, c.Store.Path(), b.layout.Socket())
		d.EligibleReadOnly = c.Device.EligibleReadOnly
		d.Protected = append(d.Protected, c.Device.Protected...)
		c.Device = d
		c.MaxSessions, c.MaxSessionsPerProcess = 1<<20, 1<<20 // every case registers its own
		played := c.Lineage
		c.Lineage = func(pid int32) ([]engine.LineageEntry, error) {
			if b.unreadable.Load() {
				return nil, errors.New("the peer is gone")
			}
			return played(pid)
		}
	})
	return b
}

// registerRoute is one way a session comes to exist over the socket.
// reg registers one with these extra workspace or read-only roots and
// returns the status and the refusal's message. readOnly: the route can
// name read-only roots.
type registerRoute struct {
	name     string
	pattern  string // the route in Server.routes
	readOnly bool
	reg      func(t *testing.T, b *boundsEnv, extra wire.SessionRequest, allowed bool) (int, string)
}

// registerRoutes are every registering route. A new one must be added
// here, where every bounds case runs through it.
var registerRoutes = []registerRoute{
	{"POST /v1/sessions", "POST /v1/sessions", true, func(t *testing.T, b *boundsEnv, extra wire.SessionRequest, _ bool) (int, string) {
		b.asPerson()
		return b.post(t, "", sessionReq(b, extra, ""))
	}},
	{"POST /v1/sessions child (pathgrant run inside a session)", "POST /v1/sessions", true, func(t *testing.T, b *boundsEnv, extra wire.SessionRequest, allowed bool) (int, string) {
		b.asPerson()
		parent := sessionReq(b, wire.SessionRequest{}, "")
		if allowed { // the parent holds the root, so only the bounds can refuse the child
			parent = sessionReq(b, extra, "")
		}
		p := b.mustRegister(t, parent)
		return b.post(t, p.Token, sessionReq(b, extra, p.ID))
	}},
	{"POST /v1/sessions child from under the session's agent", "POST /v1/sessions", true, func(t *testing.T, b *boundsEnv, extra wire.SessionRequest, allowed bool) (int, string) {
		b.asNewAgent()
		roots := []string{b.work}
		if allowed { // the parent holds the root, so only the bounds can refuse the child
			for _, r := range append(extra.Workspace, extra.ReadOnly...) {
				if canon, _ := (guard.Canonicalizer{}).Canonical(r, "/", true); !guard.Within(b.work, canon) {
					roots = append(roots, r)
				}
			}
		}
		id := b.hookSession(t, roots)
		return b.post(t, "", sessionReq(b, extra, id))
	}},
	{"POST /v1/check, a hook-only session's first check", "POST /v1/check", false, func(t *testing.T, b *boundsEnv, extra wire.SessionRequest, _ bool) (int, string) {
		b.asNewAgent()
		return b.hookCheck("", append([]string{b.work}, extra.Workspace...))
	}},
	{"POST /s/{session}/v1/check, a hook-only session's first check", "POST /s/{session}/v1/check", false, func(t *testing.T, b *boundsEnv, extra wire.SessionRequest, _ bool) (int, string) {
		b.asNewAgent()
		return b.hookCheck(testID(), append([]string{b.work}, extra.Workspace...))
	}},
}

// TestRegistrationBounds runs every bounds case, as a workspace and as a
// read-only root, through every registering route: a refusal is 403, one
// line naming the root and its class, and audited. With -short (the
// race detector's run) every route and role takes every seventh case:
// the 1,800 registrations cost a minute there and find no more races
// than a tenth of them; the unit run walks them all.
func TestRegistrationBounds(t *testing.T) {
	b := newBoundsEnv(t)
	cases := boundstest.Cases(t, b.layout)
	for _, route := range registerRoutes {
		for _, role := range []string{"workspace", "read-only root"} {
			if role == "read-only root" && !route.readOnly {
				continue
			}
			for i, c := range cases {
				if testing.Short() && i%7 != 0 {
					continue
				}
				t.Run(route.name+"/"+role+"/"+c.Name, func(t *testing.T) {
					extra := wire.SessionRequest{Workspace: []string{c.Root}}
					want := c.Want
					if role == "read-only root" {
						extra = wire.SessionRequest{ReadOnly: []string{c.Root}}
						if c.WorkspaceOnly {
							want = ""
						}
					}
					st, msg := route.reg(t, b, extra, want == "")
					if want == "" {
						if st != http.StatusCreated && st != http.StatusOK {
							t.Fatalf("%s %s: %d %q; want it allowed", role, c.Root, st, msg)
						}
						return
					}
					canon, err := (guard.Canonicalizer{Home: b.home}).Canonical(c.Root, "/", true)
					if err != nil {
						t.Fatal(err)
					}
					if st != http.StatusForbidden || !strings.HasPrefix(msg, role+" "+canon+" ") ||
						!strings.Contains(msg, want) || strings.Contains(msg, "\n") {
						t.Fatalf("%d %q; want 403 %q naming %s and %q", st, msg, role, canon, want)
					}
					b.wantAudited(t, msg)
				})
			}
		}
	}
}

// TestRegistrationBoundsNoDeputy is the confused deputy end to end: a
// session over ~/.ssh is refused, and a session over a workspace cannot
// have the daemon read ~/.ssh/id_rsa or write ~/.ssh/authorized_keys
// through the tool routes.
func TestRegistrationBoundsNoDeputy(t *testing.T) {
	b := newBoundsEnv(t)
	mustWrite(t, b.home+"/.ssh/id_rsa", "SECRET KEY\n")
	b.asPerson()
	for _, req := range []wire.SessionRequest{
		{Cwd: b.home + "/.ssh", Workspace: []string{b.home + "/.ssh"}},
		{Cwd: b.work, Workspace: []string{b.work}, ReadOnly: []string{b.home + "/.ssh"}},
		{Cwd: b.work, Workspace: []string{b.home + "/.config"}},
	} {
		if st, msg := b.post(t, "", req); st != http.StatusForbidden {
			t.Errorf("register %+v: %d %q; want 403", req, st, msg)
		}
	}
	s := b.mustRegister(t, sessionReq(b, wire.SessionRequest{}, ""))
	c := apiclient.New(b.sock)
	c.Session, c.Token = s.ID, s.Token
	for tool, args := range map[string]map[string]any{
		tools.ReadFile:  {"path": "~/.ssh/id_rsa"},
		tools.WriteFile: {"path": "~/.ssh/authorized_keys", "content": "ssh-ed25519 AAAA attacker\n"},
	} {
		raw, _ := json.Marshal(args)
		res, err := c.Tool(context.Background(), tool, wire.ToolRequest{Args: raw})
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		if res.Decision == guard.Allow || res.Content != nil && strings.Contains(*res.Content, "SECRET") {
			t.Errorf("%s %v through a workspace session: %+v", tool, args["path"], res)
		}
	}
	if _, err := os.Stat(b.home + "/.ssh/authorized_keys"); err == nil {
		t.Error("the daemon wrote ~/.ssh/authorized_keys")
	}
}

// TestRegisteringAgentBoundedByItsSession: a caller under an agent of
// session S may register only children of S (or of S's children), and a
// hook-only session only within S's roots; the same agent opening a new
// session in its own project still can.
func TestRegisteringAgentBoundedByItsSession(t *testing.T) {
	b := newBoundsEnv(t)
	other := b.home + "/other"
	if err := os.MkdirAll(other, 0o700); err != nil {
		t.Fatal(err)
	}
	b.asPerson()
	unrelated := b.mustRegister(t, sessionReq(b, wire.SessionRequest{}, ""))
	b.asNewAgent()
	s := b.hookSession(t, []string{b.work})
	child := b.mustRegister(t, wire.SessionRequest{Cwd: b.work, Workspace: []string{b.work + "/sub"}, Parent: s})
	cases := []struct {
		name string
		call func() (int, string)
		want int
	}{
		{"a top-level session", func() (int, string) { return b.post(t, "", sessionReq(b, wire.SessionRequest{}, "")) }, http.StatusForbidden},
		{"a child of another session", func() (int, string) {
			return b.post(t, unrelated.Token, sessionReq(b, wire.SessionRequest{}, unrelated.ID))
		}, http.StatusForbidden},
		{"a child of its own session", func() (int, string) { return b.post(t, "", sessionReq(b, wire.SessionRequest{}, s)) }, http.StatusCreated},
		{"a grandchild through its own child", func() (int, string) {
			return b.post(t, child.Token, wire.SessionRequest{Cwd: b.work, Workspace: []string{b.work + "/sub"}, Parent: child.ID})
		}, http.StatusCreated},
		{"a hook-only session over another folder", func() (int, string) { return b.hookCheck("", []string{other}) }, http.StatusForbidden},
		{"a hook-only session in its own project", func() (int, string) { return b.hookCheck("", []string{b.work}) }, http.StatusOK},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if st, msg := c.call(); st != c.want {
				t.Fatalf("%d %q; want %d", st, msg, c.want)
			}
		})
	}
	t.Run("an unreadable lineage", func(t *testing.T) {
		b.unreadable.Store(true)
		defer b.unreadable.Store(false)
		if st, msg := b.post(t, "", sessionReq(b, wire.SessionRequest{}, "")); st != http.StatusForbidden {
			t.Fatalf("%d %q; want 403", st, msg)
		}
	})
}

func sessionReq(b *boundsEnv, extra wire.SessionRequest, parent string) wire.SessionRequest {
	return wire.SessionRequest{Agent: "tester", Cwd: b.work, Parent: parent,
		Workspace: append([]string{b.work}, extra.Workspace...), ReadOnly: extra.ReadOnly}
}

// asPerson plays the person's terminal, which never sent a check.
func (b *boundsEnv) asPerson() { b.role.Store(&userLineage) }

// asNewAgent plays a new agent process (and its hook), not yet marked.
func (b *boundsEnv) asNewAgent() {
	pid := b.pid.Add(2)
	l := []engine.LineageEntry{{Proc: engine.Proc{PID: pid, Start: 1}, Comm: "pathgrant-hook"}, {Proc: engine.Proc{PID: pid + 1, Start: 1}, Comm: "claude"}}
	b.role.Store(&l)
}

// post registers req on a new connection (so the lineage played now is
// the caller's), with token when it names a parent.
func (b *boundsEnv) post(t *testing.T, token string, req wire.SessionRequest) (int, string) {
	t.Helper()
	c := apiclient.New(b.sock)
	c.Token = token
	defer c.CloseIdle()
	_, err := c.Register(context.Background(), req)
	if err == nil {
		return http.StatusCreated, ""
	}
	return answerOf(err)
}

func (b *boundsEnv) mustRegister(t *testing.T, req wire.SessionRequest) wire.SessionResponse {
	t.Helper()
	c := apiclient.New(b.sock)
	defer c.CloseIdle()
	resp, err := c.Register(context.Background(), req)
	if err != nil {
		t.Fatalf("register %+v: %v", req, err)
	}
	return resp
}

// hookSession is a hook-only session first seen from the agent played
// now, over roots.
func (b *boundsEnv) hookSession(t *testing.T, roots []string) string {
	t.Helper()
	id := testID()
	c := apiclient.New(b.sock)
	defer c.CloseIdle()
	if _, err := c.Check(context.Background(), wire.CheckRequest{SessionID: id, Cwd: b.work, Agent: "claude", WorkspaceRoots: roots,
		Op: guard.OpRead, Path: b.work + "/main.go"}); err != nil {
		t.Fatalf("hook session over %v: %v", roots, err)
	}
	return id
}

// hookCheck is a new hook-only session's first check from the agent
// played now: named in the body, or with inURL in the URL
// (/s/{session}/v1/check).
func (b *boundsEnv) hookCheck(inURL string, roots []string) (int, string) {
	req := wire.CheckRequest{SessionID: testID(), Cwd: b.work, Agent: "claude", WorkspaceRoots: roots, Op: guard.OpRead, Path: b.work + "/main.go"}
	if inURL == "" {
		c := apiclient.New(b.sock)
		defer c.CloseIdle()
		_, err := c.Check(context.Background(), req)
		return answerOf(err)
	}
	req.SessionID = ""
	data, _ := json.Marshal(req)
	hc := rawClient(b.sock)
	defer hc.CloseIdleConnections()
	resp, err := hc.Post("http://pathgrant/s/"+inURL+"/v1/check", "application/json", bytes.NewReader(data))
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	var e wire.Error
	json.NewDecoder(resp.Body).Decode(&e)
	return resp.StatusCode, e.Error
}

// answerOf is an API error's status and message, 200 for none.
func answerOf(err error) (int, string) {
	var ae *wire.DaemonError
	switch {
	case err == nil:
		return http.StatusOK, ""
	case errors.As(err, &ae):
		return ae.Status, ae.Msg
	}
	return 0, err.Error()
}

// wantAudited fails unless the audit log holds the refusal msg.
func (b *boundsEnv) wantAudited(t *testing.T, msg string) {
	t.Helper()
	recs, err := b.store.AuditRecords(grants.AuditFilter{Kind: grants.KindDeny})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if cut, ok := strings.CutSuffix(r.Reason, "…"); r.Reason == msg || ok && strings.HasPrefix(msg, cut) {
			return
		}
	}
	t.Errorf("refusal %q not audited as %s", msg, grants.KindDeny)
}

// TestRegisterRoutesCovered: every route of the server that can bring a
// session into existence (POST /v1/sessions, and any route whose body is a
// check, which registers a hook-only session first seen) is a row of
// registerRoutes, so the bounds table runs through it.
func TestRegisterRoutesCovered(t *testing.T) {
	e := newTestEnv(t)
	register := reflect.ValueOf(e.srv.handleRegister).Pointer()
	covered := map[string]bool{}
	for _, r := range registerRoutes {
		covered[r.pattern] = true
	}
	for _, rt := range e.srv.routes() {
		registers := rt.handle != nil && reflect.ValueOf(rt.handle).Pointer() == register
		if rt.session != nil && rt.session.body != nil {
			_, registers = rt.session.body().(*checkBody)
		}
		if registers && !covered[rt.pattern] {
			t.Errorf("route %s registers sessions but no registerRoutes row runs the bounds table through it", rt.pattern)
		}
		delete(covered, rt.pattern)
	}
	for p := range covered {
		t.Errorf("registerRoutes names %s, which is not a route", p)
	}
}
