package ipc

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"pathgrant/engine"
	"pathgrant/grants"
	"pathgrant/guard"
	"pathgrant/wire"
)

// askAttempts are the ways a caller on the shared socket might try to do
// what only the person's app may (applink: AskFromAudit, AskForPath):
// raise a request of the person's own, for a path no agent's denial
// offers, or create a grant without a request and its code. {seq} is a
// refused audit record's number, {session} the agent's session.
var askAttempts = []struct {
	name, method, path string
	body               any
}{
	{"allow an audit row", http.MethodPost, "/v1/audit/{seq}/allow", nil},
	{"ask for a path", http.MethodPost, "/v1/app/ask", map[string]string{"op": "read", "path": "{spec}"}},
	{"raise a request", http.MethodPost, "/v1/requests", wire.Request{Op: guard.OpRead, Path: "{spec}"}},
	{"raise a session's request", http.MethodPost, "/s/{session}/v1/requests", wire.Request{Op: guard.OpRead, Path: "{spec}"}},
	{"create a grant", http.MethodPost, "/v1/grants", grants.NewGrant{Scope: grants.ScopeDevice, Op: guard.OpRead, Path: "{spec}", Kind: guard.KindFile}},
	{"put a grant", http.MethodPut, "/v1/grants/x", grants.NewGrant{Scope: grants.ScopeDevice, Op: guard.OpRead, Path: "{spec}", Kind: guard.KindFile}},
	{"create a session's grant", http.MethodPost, "/s/{session}/v1/grants", grants.NewGrant{Scope: grants.ScopeSession, Op: guard.OpRead, Path: "{spec}", Kind: guard.KindFile}},
	{"create a denial", http.MethodPost, wire.PathDenials, wire.Denial{Op: guard.OpRead, Path: "{spec}"}},
}

// TestNoSocketRouteRaisesThePersonsRequest: the audit's "Allow…" and
// settings' new grant exist on the app's private link alone. On the
// shared socket, where an agent can call, there is no route for them nor
// for making a grant by hand: each attempt, from the agent and from the
// person alike, is answered 404 or 405, and afterwards nothing is
// pending, no grant exists and the refused read is still refused. The
// route table has no such pattern either.
func TestNoSocketRouteRaisesThePersonsRequest(t *testing.T) {
	e := newTestEnv(t)
	s := e.register(wire.SessionRequest{Agent: "a"})
	agent := e.clientFor(s)
	spec := e.home + "/Documents/spec.pdf"
	mustWrite(t, spec, "%PDF")
	if ans, err := agent.Check(context.Background(), wire.CheckRequest{Op: guard.OpRead, Path: spec}); err != nil || ans.Decision != guard.Deny || ans.Eligible {
		t.Fatalf("read %s: %+v, %v; want refused, not offered", spec, ans, err)
	}
	recs, err := e.store.AuditRecords(grants.AuditFilter{Kind: grants.KindRefuse})
	if err != nil || len(recs) == 0 {
		t.Fatalf("refused records: %v, %v", recs, err)
	}
	fill := strings.NewReplacer("{seq}", strconv.FormatUint(recs[len(recs)-1].Seq, 10), "{session}", s.ID, "{spec}", spec)
	for _, rt := range e.srv.routes() {
		if p := rt.pattern; strings.Contains(p, "allow") || strings.Contains(p, "ask") || (strings.HasPrefix(p, "POST") || strings.HasPrefix(p, "PUT")) && strings.HasSuffix(p, "/grants") {
			t.Errorf("route %s: the person's own requests and grants are not the socket's", p)
		}
	}
	for _, a := range askAttempts {
		for _, who := range []struct {
			name    string
			lineage []engine.LineageEntry
		}{{"the agent", agentLineage}, {"the person", userLineage}} {
			t.Run(a.name+", "+who.name, func(t *testing.T) {
				e.as(who.lineage)
				var body any
				if a.body != nil {
					body = fillBody(t, a.body, fill)
				}
				hdr := map[string]string{wire.HeaderSession: s.ID, wire.HeaderToken: s.Token}
				st, out := send(t, rawClient(e.sock), a.method, fill.Replace(a.path), hdr, body)
				if st != http.StatusNotFound && st != http.StatusMethodNotAllowed {
					t.Errorf("%s %s: %d %s; want no such route", a.method, a.path, st, out)
				}
			})
		}
	}
	e.as(agentLineage)
	if ps := e.srv.Engine().Pending(); len(ps) != 0 {
		t.Errorf("pending after the attempts: %+v; want none", ps)
	}
	if gs, err := e.store.List(grants.Filter{IncludeRevoked: true, IncludeExpired: true}); err != nil || len(gs) != 0 {
		t.Errorf("grants after the attempts: %+v, %v; want none", gs, err)
	}
	if ans, err := agent.Check(context.Background(), wire.CheckRequest{Op: guard.OpRead, Path: spec}); err != nil || ans.Decision != guard.Deny {
		t.Errorf("read %s after the attempts: %+v, %v; want still refused", spec, ans, err)
	}
}

// fillBody is body as JSON with the placeholders fill knows replaced.
func fillBody(t *testing.T, body any, fill *strings.Replacer) any {
	t.Helper()
	data, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal([]byte(fill.Replace(string(data))), &out); err != nil {
		t.Fatal(err)
	}
	return out
}
