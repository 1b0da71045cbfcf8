package ipc

import (
	"context"
	"testing"
	"time"

	"pathgrant/grants"
	"pathgrant/guard"
	"pathgrant/wire"
)

// TestOriginalIncident: a session holding a read grant for its Downloads
// folder sends `cat ~/Downloads/report.csv` with its id in the header only,
// to the global route, and is allowed; with header and body disagreeing the
// same request is refused.
func TestOriginalIncident(t *testing.T) {
	e := newTestEnv(t)
	s := e.register(wire.SessionRequest{Agent: "claude"})
	if _, err := e.store.Put(grants.NewGrant{Scope: grants.ScopeSession, Op: guard.OpRead, Path: e.dl,
		Kind: guard.KindFolder, Session: s.ID}); err != nil {
		t.Fatal(err)
	}
	c := e.clientFor(s)
	ans, err := c.Check(context.Background(), wire.CheckRequest{Command: "cat ~/Downloads/report.csv"})
	if err != nil || ans.Decision != guard.Allow || ans.Session != s.ID {
		t.Fatalf("header-only check: %+v, %v", ans, err)
	}
	_, err = c.Check(context.Background(), wire.CheckRequest{SessionID: "someone-else", Command: "cat ~/Downloads/report.csv"})
	if statusOf(err) != 409 {
		t.Fatalf("disagreeing header and body: %v, want 409", err)
	}
	recs, _ := e.store.AuditRecords(grants.AuditFilter{Kind: grants.KindConflict})
	if len(recs) != 1 {
		t.Fatalf("conflict audit records = %d, want 1", len(recs))
	}
}

// TestApproveWhileWaiting: an eligible denial waits; the user approves from
// outside the agent; the waiting call itself is answered allow, once.
func TestApproveWhileWaiting(t *testing.T) {
	e := newTestEnv(t)
	s := e.register(wire.SessionRequest{Agent: "claude"})
	c := e.clientFor(s)
	got := make(chan wire.Answer, 1)
	go func() {
		ans, err := c.Check(context.Background(), wire.CheckRequest{Command: "cat ~/Downloads/report.csv", WaitMS: 5000})
		if err != nil {
			t.Error(err)
		}
		got <- ans
	}()
	p := e.waitPending(1)
	e.as(userLineage)
	if _, err := e.client.Decide(context.Background(), p[0].ID, wire.Decision{Scope: "once", Code: e.code(p[0].ID)}); err != nil {
		t.Fatal(err)
	}
	select {
	case ans := <-got:
		if ans.Decision != guard.Allow || len(ans.Grants) != 1 {
			t.Fatalf("waiting call answered %+v, want allow by the new grant", ans)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("waiting call never answered")
	}
	e.as(agentLineage)
	again, err := c.Check(context.Background(), wire.CheckRequest{Command: "cat ~/Downloads/report.csv"})
	if err != nil || again.Decision != guard.Deny || !again.Eligible {
		t.Fatalf("once grant served twice: %+v %v", again, err)
	}
	if e.approver.shown.Load() != 2 {
		t.Fatalf("approver shown %d times, want 2 (one per request)", e.approver.shown.Load())
	}
}

// TestPolicyRoute: the effective permissions list the session's own grants
// and device grants, never another session's.
func TestPolicyRoute(t *testing.T) {
	e := newTestEnv(t)
	s := e.register(wire.SessionRequest{Agent: "a", ReadOnly: []string{e.home + "/Downloads"}})
	other := e.register(wire.SessionRequest{Agent: "b"})
	put := func(scope grants.Scope, session, path string) {
		if _, err := e.store.Put(grants.NewGrant{Scope: scope, Op: guard.OpRead, Path: path, Kind: guard.KindFile, Session: session}); err != nil {
			t.Fatal(err)
		}
	}
	put(grants.ScopeSession, s.ID, e.dl+"/report.csv")
	put(grants.ScopeSession, other.ID, e.dl+"/other.csv")
	put(grants.ScopeDevice, other.ID, e.dl+"/other.csv")
	p, err := e.clientFor(s).Policy(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if p.Session != s.ID || len(p.Workspace) != 1 || p.Workspace[0] != e.work || len(p.Grants) != 2 || len(p.Protected) == 0 {
		t.Fatalf("policy %+v", p)
	}
}
