package ipc

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"

	"pathgrant/engine"
	"pathgrant/grants"
	"pathgrant/guard"
	"pathgrant/wire"
)

// openRoutes are the routes any caller on the socket may call.
var openRoutes = map[string]bool{"GET /v1/health": true, "POST /v1/sessions": true}

// personRoutes are the person-only routes, with what each answers the
// person when called on nothing (an unknown id, an empty list).
var personRoutes = map[string]int{
	"GET /v1/requests":                http.StatusOK,
	"GET /v1/requests/{id}":           http.StatusNotFound,
	"POST /v1/requests/{id}/decision": http.StatusNotFound,
	"GET /v1/grants":                  http.StatusOK,
	"DELETE /v1/grants/{id}":          http.StatusNotFound,
	"DELETE /v1/sessions/{id}/grants": http.StatusOK,
	"GET /v1/audit":                   http.StatusOK,
	"GET /v1/sessions":                http.StatusOK,
	"GET /v1/denials":                 http.StatusOK,
	"DELETE /v1/denials/{id}":         http.StatusNotFound,
	"POST /v1/app/raise":              http.StatusNotFound, // the test daemon has no window
}

// personBodies are the bodies the walk sends a person-only POST route.
var personBodies = map[string]any{
	"POST /v1/requests/{id}/decision": wire.Decision{Scope: "deny"},
	"POST /v1/app/raise":              wire.Raise{View: wire.ViewInbox},
}

// agentCaller is one kind of caller that may act for an agent.
type agentCaller struct {
	name       string
	lineage    func(e *testEnv) []engine.LineageEntry
	unreadable bool
}

var agentCallers = []agentCaller{
	{name: "the agent that sent checks", lineage: func(*testEnv) []engine.LineageEntry { return agentLineage }},
	{name: "a script under the agent", lineage: func(*testEnv) []engine.LineageEntry {
		return append([]engine.LineageEntry{{Proc: engine.Proc{PID: 4101, Start: 1}, Comm: "python3"}, {Proc: engine.Proc{PID: 4100, Start: 1}, Comm: "bash"}}, agentLineage[1:]...)
	}},
	{name: "a process a tool call detached, below the daemon", lineage: func(e *testEnv) []engine.LineageEntry {
		return []engine.LineageEntry{{Proc: engine.Proc{PID: 4201, Start: 1}, Comm: "curl"}, {Proc: e.srv.Engine().Self(), Comm: "pathgrant"}, {Proc: engine.Proc{PID: 4200, Start: 1}, Comm: "bash"}}
	}},
	{name: "a lineage that cannot be read", unreadable: true},
}

// TestEveryRouteDeclaresItsCallers walks the route table: every route
// declares who may call it. A person-only route is refused (403, one
// line, audited as forged) to every kind of caller that may act for an
// agent and answers the person; every other route either resolves one
// session (TestEveryRouteResolvesOneSession walks those) or is listed
// here as open. A route without a declaration, or with a changed one,
// fails the walk.
func TestEveryRouteDeclaresItsCallers(t *testing.T) {
	var unreadable atomic.Bool
	e := newTestEnv(t, func(c *Config) {
		played := c.Lineage
		c.Lineage = func(pid int32) ([]engine.LineageEntry, error) {
			if unreadable.Load() {
				return nil, errors.New("peer gone")
			}
			return played(pid)
		}
	})
	agent := e.clientFor(e.register(wire.SessionRequest{Agent: "a"}))
	if _, err := agent.Check(context.Background(), wire.CheckRequest{Op: guard.OpRead, Path: e.work + "/main.go"}); err != nil {
		t.Fatal(err) // marks agentLineage as the session's agent
	}
	c := rawClient(e.sock)
	seen := map[string]bool{}
	for _, rt := range e.srv.routes() {
		switch rt.access {
		case accessOpen:
			if !openRoutes[rt.pattern] || rt.session != nil {
				t.Errorf("route %s is declared open: only %v may be", rt.pattern, openRoutes)
			}
		case accessSession:
			if rt.session == nil {
				t.Errorf("route %s is declared a session route but resolves no session", rt.pattern)
			}
		case accessPerson:
			want, ok := personRoutes[rt.pattern]
			if !ok || rt.session != nil {
				t.Errorf("route %s is declared person-only but is not listed here as one", rt.pattern)
				continue
			}
			seen[rt.pattern] = true
			t.Run(rt.pattern, func(t *testing.T) {
				walkPersonOnly(t, e, c, rt, want, &unreadable)
			})
		default:
			t.Errorf("route %s declares no callers: build it with anyone, personOnly, acting or withBody", rt.pattern)
		}
	}
	for p := range personRoutes {
		if !seen[p] {
			t.Errorf("%s is no longer a person-only route", p)
		}
	}
}

// walkPersonOnly calls a person-only route from every kind of agent
// caller (each refused and audited) and from the person (answered).
func walkPersonOnly(t *testing.T, e *testEnv, c *http.Client, rt route, want int, unreadable *atomic.Bool) {
	method, path, _ := strings.Cut(rt.pattern, " ")
	path = strings.Replace(path, "{id}", "no-such-id", 1)
	body, ok := personBodies[rt.pattern]
	if method == http.MethodPost && !ok {
		t.Fatalf("no body for %s in personBodies", rt.pattern)
	}
	for _, ac := range agentCallers {
		t.Run(ac.name, func(t *testing.T) {
			if ac.lineage != nil {
				e.as(ac.lineage(e))
			}
			unreadable.Store(ac.unreadable)
			defer unreadable.Store(false)
			before := forgedCount(t, e)
			st, out := send(t, rawClient(e.sock), method, path, nil, body)
			var ans wire.Error
			if st != http.StatusForbidden || json.Unmarshal(out, &ans) != nil || ans.Kind != string(grants.KindForged) {
				t.Fatalf("%d %s, want 403 forged", st, out)
			}
			if strings.Contains(ans.Error, "\n") || !strings.Contains(ans.Error, "is for the person") {
				t.Errorf("refusal is not one clear line: %q", ans.Error)
			}
			if forgedCount(t, e) != before+1 {
				t.Errorf("refusal not audited as forged")
			}
		})
	}
	e.as(userLineage)
	if st, out := send(t, c, method, path, nil, body); st != want {
		t.Errorf("the person: %d %s, want %d", st, out, want)
	}
}

func forgedCount(t *testing.T, e *testEnv) int {
	t.Helper()
	recs, err := e.store.AuditRecords(grants.AuditFilter{Kind: grants.KindForged})
	if err != nil {
		t.Fatal(err)
	}
	return len(recs)
}

// TestToolProcessMarked: the process a tool call's sandbox started is
// marked as the call's session's agent, so whatever runs under it is told
// apart by session.
func TestToolProcessMarked(t *testing.T) {
	e := newTestEnv(t)
	cmd := exec.Command("sleep", "5")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	e.srv.Engine().MarkToolProcess("s1")(cmd.Process.Pid)
	_, p, _, err := engine.ProcInfo(int32(cmd.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	below := []engine.LineageEntry{{Proc: engine.Proc{PID: 1 << 22, Start: 1}, Comm: "curl"}, {Proc: p, Comm: "sleep"}}
	if why, s := e.srv.Engine().JudgeCaller(engine.FixedLineage(below, nil)); why == "" || s != "s1" {
		t.Fatalf("a process under the tool's: %q (%s), want an agent of session s1", s, why)
	}
}

// TestCallerIsAgent: what register.go asks of a caller: the kinds of
// agent callers are agents (with their session when it is known), the
// person and the daemon's own in-process client are not.
func TestCallerIsAgent(t *testing.T) {
	e := newTestEnv(t)
	s := e.register(wire.SessionRequest{Agent: "a"})
	e.srv.Engine().MarkAgent(engine.FixedLineage(agentLineage[1:2], nil), s.ID)
	tests := []struct {
		name    string
		lin     []engine.LineageEntry
		session string
		agent   bool
	}{
		{"the agent", agentLineage, s.ID, true},
		{"below the daemon, its tool shell gone", []engine.LineageEntry{{Proc: engine.Proc{PID: 4301, Start: 1}, Comm: "sh"}, {Proc: e.srv.Engine().Self(), Comm: "pathgrant"}}, "", true},
		{"below the daemon and the agent", []engine.LineageEntry{{Proc: engine.Proc{PID: 4302, Start: 1}, Comm: "sh"}, {Proc: e.srv.Engine().Self(), Comm: "pathgrant"}, agentLineage[1]}, s.ID, true},
		{"a reused daemon pid is not the daemon", []engine.LineageEntry{{Proc: engine.Proc{PID: 4303, Start: 1}, Comm: "sh"}, {Proc: engine.Proc{PID: e.srv.Engine().Self().PID, Start: e.srv.Engine().Self().Start + 1}, Comm: "x"}}, "", false},
		{"the person", userLineage, "", false},
		{"the daemon itself", []engine.LineageEntry{{Proc: e.srv.Engine().Self(), Comm: "pathgrant"}, {Proc: engine.Proc{PID: 4304, Start: 1}, Comm: "bash"}}, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, _ := http.NewRequest("GET", "/", nil)
			r = r.WithContext(context.WithValue(r.Context(), peerKey{}, &connInfo{}))
			e.as(tt.lin)
			why, session := e.srv.Engine().JudgeCaller(e.srv.lineage(r))
			if agent := why != ""; session != tt.session || agent != tt.agent {
				t.Fatalf("JudgeCaller = %q (%s), want %q agent %v", session, why, tt.session, tt.agent)
			}
		})
	}
}
