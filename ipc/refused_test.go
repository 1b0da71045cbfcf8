package ipc

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"pathgrant/grants"
	"pathgrant/guard"
	"pathgrant/wire"
)

// TestRefusedChecksAudited: a check that could never become a prompt is
// still recorded, once per distinct refusal and again at each power of
// ten, with the count; a tool the hook cannot map is denied and recorded.
func TestRefusedChecksAudited(t *testing.T) {
	for _, tc := range []struct {
		name    string
		req     func(e *testEnv) wire.CheckRequest
		rule    wire.Rule
		tries   int
		records int
	}{
		{"a path no policy offers (~/.ssh)", func(e *testEnv) wire.CheckRequest {
			return wire.CheckRequest{Op: guard.OpRead, Path: e.home + "/.ssh/id_ed25519", Tool: "Read"}
		}, wire.RuleOutside, 1, 1},
		{"a write outside the workspace, retried", func(e *testEnv) wire.CheckRequest {
			return wire.CheckRequest{Op: guard.OpWrite, Path: e.dl + "/report.csv", Tool: "Write"}
		}, "", 100, 3}, // the 1st, 10th and 100th
		{"an unmapped tool", func(*testEnv) wire.CheckRequest {
			return wire.CheckRequest{Tool: "FancySearch", Unmapped: true}
		}, wire.RuleUnmapped, 12, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newTestEnv(t)
			c := e.clientFor(e.register(wire.SessionRequest{Agent: "claude"}))
			var ans wire.Answer
			for range tc.tries {
				var err error
				ans, err = c.Check(context.Background(), tc.req(e))
				if err != nil || ans.Decision != guard.Deny || ans.Pending != "" || ans.Eligible {
					t.Fatalf("%+v %v", ans, err)
				}
			}
			if tc.rule != "" && ans.Rule != tc.rule {
				t.Errorf("rule %s, want %s", ans.Rule, tc.rule)
			}
			recs, err := e.store.AuditRecords(grants.AuditFilter{Kind: grants.KindRefuse})
			if err != nil || len(recs) != tc.records {
				t.Fatalf("%d refuse records (%v), want %d: %+v", len(recs), err, tc.records, recs)
			}
			if last := recs[len(recs)-1]; tc.tries > 1 && !strings.Contains(last.Reason, "times in this session") {
				t.Errorf("the last record does not count: %q", last.Reason)
			}
			if e.approver.shown.Load() != 0 {
				t.Error("a refusal opened a prompt")
			}
		})
	}
}

// TestRefusalsBounded: a session's distinct refusals are counted up to a
// bound; past it they are counted by op and rule, so a flood of junk
// neither grows the daemon nor hides a later probe from the log.
func TestRefusalsBounded(t *testing.T) {
	e := newTestEnv(t)
	c := e.clientFor(e.register(wire.SessionRequest{Agent: "claude"}))
	for i := range 300 {
		req := wire.CheckRequest{Tool: fmt.Sprintf("Junk%03d", i), Unmapped: true}
		if _, err := c.Check(context.Background(), req); err != nil {
			t.Fatal(err)
		}
	}
	// 256 distinct, then 44 counted together: audited at 1 and 10
	if n := auditCount(t, e, grants.KindRefuse); n != 258 {
		t.Fatalf("%d refuse records, want 258", n)
	}
	key := e.home + "/.ssh/id_ed25519"
	if _, err := c.Check(context.Background(), wire.CheckRequest{Op: guard.OpRead, Path: key, Tool: "Read"}); err != nil {
		t.Fatal(err)
	}
	recs, _ := e.store.AuditRecords(grants.AuditFilter{Kind: grants.KindRefuse})
	if last := recs[len(recs)-1]; last.Path != key || !strings.Contains(last.Reason, "beyond the session's first 256") {
		t.Fatalf("the probe after the junk: %+v", last)
	}
}

// TestUnmappedCheckNamesItsToolAlone: an unmapped check with anything to
// judge, or without its tool, is a bad request, not a silent deny.
func TestUnmappedCheckNamesItsToolAlone(t *testing.T) {
	e := newTestEnv(t)
	c := e.clientFor(e.register(wire.SessionRequest{Agent: "claude"}))
	for _, req := range []wire.CheckRequest{
		{Unmapped: true},
		{Unmapped: true, Tool: "X", Op: guard.OpRead, Path: e.work + "/main.go"},
		{Unmapped: true, Tool: "X", Command: "ls"},
	} {
		if _, err := c.Check(context.Background(), req); statusOf(err) != 400 {
			t.Errorf("%+v: %v, want 400", req, err)
		}
	}
}

// TestIDPrefixes: every id a person types (a request, a grant, a
// remembered denial) may be a unique prefix of at least grants.MinPrefix
// characters; shorter is refused, one line, and so is an unknown one.
func TestIDPrefixes(t *testing.T) {
	e := newTestEnv(t)
	c := e.clientFor(e.register(wire.SessionRequest{Agent: "claude"}))
	ask := func(file string) string {
		e.as(agentLineage)
		ans, err := c.Check(context.Background(), wire.CheckRequest{Op: guard.OpRead, Path: e.dl + "/" + file})
		if err != nil || ans.Pending == "" {
			t.Fatalf("%+v %v", ans, err)
		}
		e.as(userLineage)
		return ans.Pending
	}
	id := ask("report.csv")
	for _, tc := range []struct {
		prefix string
		status int
	}{{id[:grants.MinPrefix-1], 400}, {"ffffffffffff", 404}} {
		if _, err := e.client.Decide(context.Background(), tc.prefix, wire.Decision{Scope: "session", Code: e.codeFor(id, "session")}); statusOf(err) != tc.status || strings.Contains(err.Error(), "\n") {
			t.Errorf("decide %q: %v, want %d", tc.prefix, err, tc.status)
		}
	}
	if r, err := e.client.Request(context.Background(), id[:grants.MinPrefix]); err != nil || r.ID != id {
		t.Fatalf("request by prefix: %+v %v", r, err)
	}
	r, err := e.client.Decide(context.Background(), id[:grants.MinPrefix], wire.Decision{Scope: "session", Code: e.codeFor(id, "session")})
	if err != nil || r.ID != id || r.State != wire.StateApproved {
		t.Fatalf("decide by prefix: %+v %v", r, err)
	}
	if err := e.client.Revoke(context.Background(), r.Grant[:len("g-")+grants.MinPrefix-1]); statusOf(err) != 400 {
		t.Errorf("revoke by a short prefix: %v, want 400", err)
	}
	if err := e.client.Revoke(context.Background(), strings.TrimPrefix(r.Grant, "g-")[:grants.MinPrefix]); err != nil {
		t.Fatalf("revoke by prefix: %v", err)
	}
	if g, _ := e.store.Get(r.Grant); g.Ended != grants.EndRevoked {
		t.Fatalf("grant %+v not revoked", g)
	}
	other := ask("other.csv")
	if _, err := e.client.Decide(context.Background(), other, wire.Decision{Scope: "deny", Remember: true}); err != nil {
		t.Fatal(err)
	}
	dens, _ := e.client.Denials(context.Background())
	if err := e.client.LiftDenial(context.Background(), dens[0].ID[:grants.MinPrefix-1]); statusOf(err) != 400 {
		t.Errorf("lift by a short prefix: %v, want 400", err)
	}
}
