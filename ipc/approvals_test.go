package ipc

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"pathgrant/grants"
	"pathgrant/guard"
	"pathgrant/tools"
	"pathgrant/wire"
)

// TestCoalescing: 1,000 identical eligible denials are one pending request
// with a repeat count, one prompt, and one request audit record.
func TestCoalescing(t *testing.T) {
	e := newTestEnv(t)
	c := e.clientFor(e.register(wire.SessionRequest{Agent: "a"}))
	var wg sync.WaitGroup
	for i := range 1000 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ans, err := c.Check(context.Background(), wire.CheckRequest{Command: "cat ~/Downloads/report.csv", RequestID: fmt.Sprint(i)})
			if err != nil || ans.Decision != guard.Deny || ans.Pending == "" {
				t.Errorf("check %d: %+v %v", i, ans, err)
			}
		}()
		if i%50 == 49 {
			wg.Wait()
		}
	}
	wg.Wait()
	p := e.waitPending(1)
	if p[0].Count != 1000 || e.approver.shown.Load() != 1 || auditCount(t, e, grants.KindRequest) != 1 {
		t.Fatalf("count %d, shown %d, request records %d; want 1000, 1, 1", p[0].Count, e.approver.shown.Load(), auditCount(t, e, grants.KindRequest))
	}
}

// TestPendingCap: past the per-session cap an eligible denial is a plain
// deny, audited, and nothing more is queued.
func TestPendingCap(t *testing.T) {
	e := newTestEnv(t, func(c *Config) { c.PendingCap = 2 })
	c := e.clientFor(e.register(wire.SessionRequest{Agent: "a"}))
	for i := range 3 {
		mustWrite(t, fmt.Sprintf("%s/f%d.csv", e.dl, i), "x")
		ans, err := c.Check(context.Background(), wire.CheckRequest{Op: guard.OpRead, Path: fmt.Sprintf("%s/f%d.csv", e.dl, i)})
		if err != nil {
			t.Fatal(err)
		}
		if wantPending := i < 2; (ans.Pending != "") != wantPending || ans.Eligible != wantPending {
			t.Fatalf("check %d: %+v", i, ans)
		}
	}
	if len(e.srv.Engine().Pending()) != 2 {
		t.Fatalf("pending %d, want 2", len(e.srv.Engine().Pending()))
	}
}

// TestPendingExpires: a request nobody decides ends as a one-time deny,
// never as a grant.
func TestPendingExpires(t *testing.T) {
	e := newTestEnv(t, func(c *Config) { c.PendingTTL = 100 * time.Millisecond })
	s := e.register(wire.SessionRequest{Agent: "a"})
	c := e.clientFor(s)
	ans, err := c.Check(context.Background(), wire.CheckRequest{Command: "cat ~/Downloads/report.csv"})
	if err != nil || ans.Pending == "" {
		t.Fatal(ans, err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for e.approver.withdrawn.Load() == 0 && time.Now().Before(deadline) { // withdrawn last, after the audit
		time.Sleep(20 * time.Millisecond)
	}
	e.as(userLineage)
	r, err := e.client.Request(context.Background(), ans.Pending)
	if err != nil || r.State != wire.StateExpired {
		t.Fatalf("request %+v %v, want expired", r, err)
	}
	if gs, _ := e.store.List(grants.Filter{Session: s.ID, IncludeRevoked: true, IncludeExpired: true}); len(gs) != 0 {
		t.Fatalf("an expired request left grants: %+v", gs)
	}
	if auditCount(t, e, grants.KindExpire) != 1 || e.approver.withdrawn.Load() != 1 {
		t.Fatal("expiry not audited once or prompt not withdrawn")
	}
}

// TestBackgroundNeverWaits: background and scheduled sessions are denied
// at once, and the request stays pending for the user to review.
func TestBackgroundNeverWaits(t *testing.T) {
	for _, kind := range []string{wire.KindBackground, wire.KindScheduled} {
		t.Run(kind, func(t *testing.T) {
			e := newTestEnv(t)
			c := e.clientFor(e.register(wire.SessionRequest{Agent: "cron", Kind: kind}))
			start := time.Now()
			ans, err := c.Check(context.Background(), wire.CheckRequest{Command: "cat ~/Downloads/report.csv", WaitMS: 60000})
			if err != nil || ans.Decision != guard.Deny || ans.Pending == "" || time.Since(start) > 10*time.Second {
				t.Fatalf("%+v %v after %v", ans, err, time.Since(start))
			}
			if p := e.waitPending(1); p[0].SessionKind != kind {
				t.Fatalf("pending %+v", p)
			}
		})
	}
}

// TestChildSession: a child is confined to its parent's policy, inherits
// its blocked-write paths, and ends with it.
func TestChildSession(t *testing.T) {
	e := newTestEnv(t)
	mustWrite(t, e.work+"/sub/x.txt", "x")
	mustWrite(t, e.work+"/vendor/v.go", "x")
	parent := e.register(wire.SessionRequest{Agent: "p", Cwd: e.work, Workspace: []string{e.work}, BlockedWrite: []string{e.work + "/vendor"}})
	pc := e.clientFor(parent)
	if _, err := pc.Register(context.Background(), wire.SessionRequest{Parent: parent.ID, Cwd: e.dl, Workspace: []string{e.dl}}); statusOf(err) != 400 {
		t.Fatalf("child outside parent: %v, want 400", err)
	}
	if _, err := e.client.Register(context.Background(), wire.SessionRequest{Parent: parent.ID, Cwd: e.work, Workspace: []string{e.work}}); statusOf(err) != 403 {
		t.Fatalf("child without the parent's token: %v, want 403", err)
	}
	child, err := pc.Register(context.Background(), wire.SessionRequest{Parent: parent.ID, Cwd: e.work, Workspace: []string{e.work}})
	if err != nil || child.Kind != wire.KindBackground {
		t.Fatalf("child: %+v %v", child, err)
	}
	cc := e.clientFor(child)
	for _, tc := range []struct {
		cmd  string
		want guard.Verdict
	}{{"cat sub/x.txt", guard.Allow}, {"rm vendor/v.go", guard.Deny}, {"cat ~/Downloads/report.csv", guard.Deny}} {
		if ans, err := cc.Check(context.Background(), wire.CheckRequest{Command: tc.cmd}); err != nil || ans.Decision != tc.want {
			t.Errorf("child %q: %+v %v", tc.cmd, ans, err)
		}
	}
	if err := pc.EndSession(context.Background(), parent.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := cc.Check(context.Background(), wire.CheckRequest{Command: "ls"}); statusOf(err) != 410 {
		t.Fatalf("child after parent ended: %v, want 410", err)
	}
}

// TestDecisions: what a decision may and may not do.
func TestDecisions(t *testing.T) {
	e := newTestEnv(t)
	s := e.register(wire.SessionRequest{Agent: "a"})
	c := e.clientFor(s)
	pending := func(path string) string {
		e.as(agentLineage)
		ans, err := c.Check(context.Background(), wire.CheckRequest{Op: guard.OpRead, Path: path})
		if err != nil || ans.Pending == "" {
			t.Fatalf("no pending request: %+v %v", ans, err)
		}
		e.as(userLineage)
		return ans.Pending
	}
	tests := []struct {
		name   string
		path   string
		dec    wire.Decision
		status int
		grant  string // expected grant "scope kind path"
	}{
		{"deny", e.dl + "/report.csv", wire.Decision{Scope: "deny"}, 0, ""},
		{"unknown scope", e.dl + "/report.csv", wire.Decision{Scope: "forever"}, 400, ""},
		{"unknown kind", e.dl + "/report.csv", wire.Decision{Scope: "once", Kind: "tree"}, 400, ""},
		{"session file", e.dl + "/report.csv", wire.Decision{Scope: "session"}, 0, "session file " + e.dl + "/report.csv"},
		{"device folder", e.dl + "/other.csv", wire.Decision{Scope: "device", Kind: guard.KindFolder}, 0, "device folder " + e.dl},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := pending(tt.path)
			dec := tt.dec
			dec.Code = e.codeFitting(id, dec)
			r, err := e.client.Decide(context.Background(), id, dec)
			if statusOf(err) != tt.status {
				t.Fatalf("decide: %v, want status %d", err, tt.status)
			}
			if tt.grant == "" {
				return
			}
			g, gerr := e.store.Get(r.Grant)
			if gerr != nil || fmt.Sprintf("%s %s %s", g.Scope, g.Kind, g.Path) != tt.grant {
				t.Fatalf("grant %+v %v, want %s", g, gerr, tt.grant)
			}
		})
	}
	e.as(userLineage)
	if _, err := e.client.Decide(context.Background(), "no-such-id", wire.Decision{Scope: "once"}); statusOf(err) != 404 {
		t.Fatalf("unknown request: %v", err)
	}
}

// TestDecidedTwice: exactly one of two concurrent decisions wins.
func TestDecidedTwice(t *testing.T) {
	e := newTestEnv(t)
	c := e.clientFor(e.register(wire.SessionRequest{Agent: "a"}))
	ans, _ := c.Check(context.Background(), wire.CheckRequest{Command: "cat ~/Downloads/report.csv"})
	e.as(userLineage)
	var wg sync.WaitGroup
	var mu sync.Mutex
	wins := 0
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := e.client.Decide(context.Background(), ans.Pending, wire.Decision{Scope: "session", Code: e.codeFor(ans.Pending, "session")}); err == nil {
				mu.Lock()
				wins++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if gs, _ := e.store.List(grants.Filter{}); wins != 1 || len(gs) != 1 {
		t.Fatalf("%d decisions won, %d grants; want 1 and 1", wins, len(gs))
	}
}

// decidingApprover approves each request with scope once the instant its
// prompt is shown, before the call that raised it could take a step more.
type decidingApprover struct {
	decide func(id string) error
	errs   chan error
}

func (a *decidingApprover) Show(r wire.Request, _ []wire.ChoiceCode) { a.errs <- a.decide(r.ID) }
func (a *decidingApprover) Withdraw(string)                          {}

// TestApprovedAsShown: an approval made the moment the prompt appears
// answers the call that raised the request, on the check route and on
// the tool route alike: the call counts as waiting from the moment its
// request exists, so no decision can fall between the two and leave it
// told to retry.
func TestApprovedAsShown(t *testing.T) {
	a := &decidingApprover{errs: make(chan error, 8)}
	e := newTestEnv(t, func(c *Config) { c.Approver = a })
	a.decide = func(id string) error {
		_, err := e.srv.Engine().Decide(id, wire.Decision{Scope: "once"})
		return err
	}
	c := e.clientFor(e.register(wire.SessionRequest{Agent: "claude"}))
	routes := []struct {
		name string
		call func(path string) (guard.Verdict, string, error)
	}{
		{"check", func(path string) (guard.Verdict, string, error) {
			ans, err := c.Check(context.Background(), wire.CheckRequest{Op: guard.OpRead, Path: path, WaitMS: 10_000})
			return ans.Decision, ans.Reason, err
		}},
		{"tool", func(path string) (guard.Verdict, string, error) {
			raw, _ := json.Marshal(map[string]any{"path": path})
			res, err := c.Tool(context.Background(), tools.ReadFile, wire.ToolRequest{Args: raw, WaitMS: 10_000})
			return res.Decision, res.Reason, err
		}},
	}
	for i, rt := range routes {
		t.Run(rt.name, func(t *testing.T) {
			path := fmt.Sprintf("%s/shown%d.csv", e.dl, i)
			mustWrite(t, path, "a,b\n")
			verdict, reason, err := rt.call(path)
			if err != nil {
				t.Fatal(err)
			}
			if derr := <-a.errs; derr != nil {
				t.Fatalf("the approval failed: %v", derr)
			}
			if verdict != guard.Allow {
				t.Fatalf("approved as shown, the call got %s: %s", verdict, reason)
			}
		})
	}
}
