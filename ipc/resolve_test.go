package ipc

import (
	"net/http"
	"testing"
	"time"

	"pathgrant/grants"
	"pathgrant/wire"
)

// TestResolveSession is the one table for the one resolver: every source,
// every agreement and every refusal, each refusal audited exactly once.
func TestResolveSession(t *testing.T) {
	e := newTestEnv(t)
	tok := e.register(wire.SessionRequest{Agent: "runner"})
	tok2 := e.register(wire.SessionRequest{Agent: "runner"})
	client := func(id string) *wire.CheckRequest { return &wire.CheckRequest{ClientSession: id, Cwd: e.work} }
	ended := e.register(wire.SessionRequest{Agent: "runner"})
	e.srv.sessions.end(ended.ID)
	expired := e.register(wire.SessionRequest{Agent: "runner"})
	e.srv.sessions.get(expired.ID).Expires = time.Now().Add(-time.Minute)
	parent := e.register(wire.SessionRequest{Agent: "runner"})
	child, err := e.clientFor(parent).Register(t.Context(), wire.SessionRequest{Agent: "bg", Parent: parent.ID, Cwd: e.work, Workspace: []string{e.work}})
	if err != nil {
		t.Fatal(err)
	}
	e.srv.sessions.end(parent.ID)
	hook := &wire.CheckRequest{Cwd: e.work, Agent: "claude"}
	if _, err := e.srv.resolveSession(idSources{Body: "hook-1"}, "", fixedLineage(agentLineage, nil), hook); err != nil {
		t.Fatalf("auto-register hook session: %v", err)
	}
	otherAgent := []lineageEntry{{Proc{PID: 7001, Start: 9}, "pathgrant-hook"}, {Proc{PID: 7000, Start: 9}, "claude"}}

	tests := []struct {
		name    string
		src     idSources
		token   string
		lineage []lineageEntry
		auto    *wire.CheckRequest
		status  int // 0: resolved
		want    string
		kind    grants.Kind
	}{
		{name: "url", src: idSources{URL: tok.ID}, token: tok.Token, want: tok.ID},
		{name: "header", src: idSources{Header: tok.ID}, token: tok.Token, want: tok.ID},
		{name: "body", src: idSources{Body: tok.ID}, token: tok.Token, want: tok.ID},
		{name: "env", src: idSources{Env: tok.ID}, token: tok.Token, want: tok.ID},
		{name: "all agree", src: idSources{tok.ID, tok.ID, tok.ID, tok.ID, tok.ID}, token: tok.Token, want: tok.ID},
		{name: "query", src: idSources{Query: tok.ID}, token: tok.Token, want: tok.ID},
		{name: "url and query disagree", src: idSources{URL: tok.ID, Query: "x"}, token: tok.Token, status: http.StatusConflict, kind: grants.KindConflict},
		{name: "url and header disagree", src: idSources{URL: tok.ID, Header: "x"}, token: tok.Token, status: http.StatusConflict, kind: grants.KindConflict},
		{name: "header and body disagree", src: idSources{Header: tok.ID, Body: "x"}, token: tok.Token, status: http.StatusConflict, kind: grants.KindConflict},
		{name: "body and env disagree", src: idSources{Body: tok.ID, Env: "x"}, token: tok.Token, status: http.StatusConflict, kind: grants.KindConflict},
		{name: "conflict is refused even when one is valid and auto is on", src: idSources{Body: "new", Env: tok.ID}, auto: hook, status: http.StatusConflict, kind: grants.KindConflict},
		{name: "no source", src: idSources{}, token: tok.Token, status: http.StatusBadRequest, kind: grants.KindConflict},
		{name: "unknown", src: idSources{Header: "nope"}, status: http.StatusNotFound, kind: grants.KindStale},
		{name: "unknown without cwd is not registered", src: idSources{Body: "nope"}, auto: &wire.CheckRequest{Cwd: "relative"}, status: http.StatusNotFound, kind: grants.KindStale},
		{name: "ended", src: idSources{Header: ended.ID}, token: ended.Token, status: http.StatusGone, kind: grants.KindStale},
		{name: "expired", src: idSources{Header: expired.ID}, token: expired.Token, status: http.StatusGone, kind: grants.KindStale},
		{name: "parent ended", src: idSources{Header: child.ID}, token: child.Token, status: http.StatusGone, kind: grants.KindStale},
		{name: "wrong token", src: idSources{Header: tok.ID}, token: ended.Token, status: http.StatusForbidden, kind: grants.KindForged},
		{name: "no token", src: idSources{Header: tok.ID}, status: http.StatusForbidden, kind: grants.KindForged},
		{name: "hook session from its agent", src: idSources{Body: "hook-1"}, lineage: agentLineage, want: "hook-1"},
		{name: "hook session from another agent", src: idSources{Body: "hook-1"}, lineage: otherAgent, status: http.StatusForbidden, kind: grants.KindForged},
		{name: "hook session with a token but no lineage", src: idSources{Body: "hook-1"}, token: tok.Token, status: http.StatusForbidden, kind: grants.KindForged},
		{name: "first sight registers", src: idSources{Body: "hook-2"}, lineage: otherAgent, auto: hook, want: "hook-2"},
		{name: "client id binds on first sight", src: idSources{Env: tok.ID}, token: tok.Token, auto: client("claude-1"), want: tok.ID},
		{name: "client id alone finds its session", src: idSources{}, token: tok.Token, auto: client("claude-1"), want: tok.ID},
		{name: "client id bound to another session", src: idSources{Env: tok2.ID}, token: tok2.Token, auto: client("claude-1"), status: http.StatusConflict, kind: grants.KindConflict},
		{name: "client id naming another session", src: idSources{Env: tok.ID}, token: tok.Token, auto: client(tok2.ID), status: http.StatusConflict, kind: grants.KindConflict},
		{name: "client id of a forged request is not bound", src: idSources{Env: tok2.ID}, token: tok.Token, auto: client("claude-2"), status: http.StatusForbidden, kind: grants.KindForged},
		{name: "so it stays free", src: idSources{Env: tok.ID}, token: tok.Token, auto: client("claude-2"), want: tok.ID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := auditCount(t, e, "")
			sess, err := e.srv.resolveSession(tt.src, tt.token, fixedLineage(tt.lineage, nil), tt.auto)
			after := auditCount(t, e, "")
			if tt.status == 0 {
				if err != nil || sess.ID != tt.want {
					t.Fatalf("resolved %v, %v; want %s", sess, err, tt.want)
				}
				if after != before {
					t.Fatalf("a resolved request left %d audit records", after-before)
				}
				return
			}
			if err == nil || err.status != tt.status || err.kind != tt.kind {
				t.Fatalf("got %v, want %d %s", err, tt.status, tt.kind)
			}
			if after != before+1 || auditCount(t, e, tt.kind) == 0 {
				t.Fatalf("refusal left %d audit records, want exactly 1 of kind %s", after-before, tt.kind)
			}
		})
	}
}

func auditCount(t *testing.T, e *testEnv, kind grants.Kind) int {
	t.Helper()
	recs, err := e.store.AuditRecords(grants.AuditFilter{Kind: kind})
	if err != nil {
		t.Fatal(err)
	}
	return len(recs)
}
