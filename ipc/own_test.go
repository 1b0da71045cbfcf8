package ipc

import (
	"context"
	"slices"
	"testing"

	"pathgrant/apiclient"
	"pathgrant/grants"
	"pathgrant/guard"
	"pathgrant/wire"
)

// ownEnv is two sessions, a and b, each with one pending request and one
// grant approved by the person, and each agent's client holding its own
// session's credentials.
type ownEnv struct {
	*testEnv
	a, b           *apiclient.Client
	aReq, bReq     string // pending requests
	aGrant, bGrant string // grants approved in a and in b
}

func newOwnEnv(t *testing.T) ownEnv {
	t.Helper()
	e := ownEnv{testEnv: newTestEnv(t)}
	e.a, e.b = e.clientFor(e.register(wire.SessionRequest{Agent: "a"})), e.clientFor(e.register(wire.SessionRequest{Agent: "b"}))
	ask := func(c *apiclient.Client, file string) string {
		ans, err := c.Check(context.Background(), wire.CheckRequest{Op: guard.OpRead, Path: e.dl + "/" + file})
		if err != nil || ans.Pending == "" {
			t.Fatalf("check %s: %+v %v", file, ans, err)
		}
		return ans.Pending
	}
	grant := func(c *apiclient.Client, file string) string {
		r, err := e.srv.Decide(ask(c, file), wire.Decision{Scope: "session"}) // the person, in the app
		if err != nil || r.Grant == "" {
			t.Fatalf("approve %s: %+v %v", file, r, err)
		}
		return r.Grant
	}
	e.aGrant, e.bGrant = grant(e.a, "report.csv"), grant(e.b, "report.csv")
	e.aReq, e.bReq = ask(e.a, "other.csv"), ask(e.b, "other.csv")
	return e
}

// TestOwnSessionSeesOnlyItsOwn: from under its agent, a session's own
// credentials list, read and deny its own requests and list and revoke
// its own grants; another session's are unknown to it (404) and stay as
// they were. The person sees both.
func TestOwnSessionSeesOnlyItsOwn(t *testing.T) {
	e := newOwnEnv(t)
	ctx := context.Background()
	e.as(agentLineage)
	reqs, err := e.a.Pending(ctx)
	if err != nil || len(reqs) != 1 || reqs[0].ID != e.aReq {
		t.Fatalf("own pending: %+v %v, want only %s", reqs, err, e.aReq)
	}
	gs, err := e.a.Grants(ctx, "", true)
	if err != nil || len(gs) != 1 || gs[0].ID != e.aGrant {
		t.Fatalf("own grants: %+v %v, want only %s", gs, err, e.aGrant)
	}
	refused := []struct {
		name string
		call func() error
	}{
		{"read b's request", func() error { _, err := e.a.Request(ctx, e.bReq); return err }},
		{"deny b's request", func() error { _, err := e.a.Decide(ctx, e.bReq, wire.Decision{Scope: "deny"}); return err }},
		{"revoke b's grant", func() error { return e.a.Revoke(ctx, e.bGrant) }},
		{"b's grants by name", func() error { _, err := e.a.Grants(ctx, e.a.Session+"x", false); return err }},
		{"approve its own request", func() error { _, err := e.a.Decide(ctx, e.aReq, wire.Decision{Scope: "once", Code: "x"}); return err }},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			if st := statusOf(tt.call()); st != 404 && st != 403 {
				t.Fatalf("status %d, want 404 or 403", st)
			}
		})
	}
	if r, _, _ := e.srv.queue.get(e.bReq); r.State != wire.StatePending {
		t.Fatalf("b's request is %s, want pending", r.State)
	}
	if g, _ := e.store.Get(e.bGrant); g.State(e.srv.now()) != "live" {
		t.Fatalf("b's grant is %s, want live", g.State(e.srv.now()))
	}
	if r, err := e.a.Request(ctx, e.aReq); err != nil || r.ID != e.aReq {
		t.Fatalf("own request: %+v %v", r, err)
	}
	if r, err := e.a.Decide(ctx, e.aReq, wire.Decision{Scope: "deny"}); err != nil || r.State != wire.StateDenied {
		t.Fatalf("deny own: %+v %v", r, err)
	}
	if _, err := e.a.Decide(ctx, e.aReq, wire.Decision{Scope: "deny"}); statusOf(err) != 409 {
		t.Fatalf("deny own again: %v, want 409", err)
	}
	recs, _ := e.store.AuditRecords(grants.AuditFilter{Session: e.a.Session, Kind: grants.KindDeny})
	if !slices.ContainsFunc(recs, func(r grants.Record) bool { return r.Reason == "denied by its own session" }) {
		t.Fatalf("own deny not audited as the session's: %+v", recs)
	}
	if err := e.a.Revoke(ctx, e.aGrant); err != nil {
		t.Fatalf("revoke own: %v", err)
	}
	e.as(userLineage)
	all, err := e.client.Pending(ctx)
	if err != nil || len(all) != 1 || all[0].ID != e.bReq {
		t.Fatalf("the person's pending: %+v %v, want b's", all, err)
	}
	every, err := e.client.Grants(ctx, "", false)
	if err != nil || len(every) != 1 || every[0].ID != e.bGrant {
		t.Fatalf("the person's grants: %+v %v, want b's", every, err)
	}
}

// TestOwnRevokeAll: a session revokes every grant approved in it, and
// none of another's.
func TestOwnRevokeAll(t *testing.T) {
	e := newOwnEnv(t)
	ctx := context.Background()
	ids, err := e.a.RevokeSession(ctx, e.a.Session)
	if err != nil || !slices.Equal(ids, []string{e.aGrant}) {
		t.Fatalf("revoked %v %v, want [%s]", ids, err, e.aGrant)
	}
	live, err := e.store.List(grants.Filter{})
	if err != nil || len(live) != 1 || live[0].ID != e.bGrant {
		t.Fatalf("live grants %+v %v, want b's alone", live, err)
	}
	if _, err := e.a.RevokeSession(ctx, e.b.Session); statusOf(err) != 403 {
		t.Fatalf("revoking b's from a's agent: %v, want 403", err)
	}
}
