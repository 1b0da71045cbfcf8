package ipc

import (
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"pathgrant/engine"
	"pathgrant/grants"
	"pathgrant/wire"
)

// TestResolveSession is the one table for the one resolver: every source,
// every agreement and every refusal, each refusal audited exactly once.
func TestResolveSession(t *testing.T) {
	var skew atomic.Int64
	e := newTestEnv(t, func(c *Config) { c.Now = func() time.Time { return time.Now().Add(time.Duration(skew.Load())) } })
	tok := e.register(wire.SessionRequest{Agent: "runner"})
	tok2 := e.register(wire.SessionRequest{Agent: "runner"})
	client := func(id string) *wire.CheckRequest { return &wire.CheckRequest{ClientSession: id, Cwd: e.work} }
	ended := e.register(wire.SessionRequest{Agent: "runner"})
	e.srv.Engine().End(ended.ID, grants.EndReasonSessionEnd)
	// expired: registered so that its day ends a moment from now.
	skew.Store(int64(-e.srv.Engine().Config().SessionMaxAge + 300*time.Millisecond))
	expired := e.register(wire.SessionRequest{Agent: "runner"})
	skew.Store(0)
	time.Sleep(400 * time.Millisecond)
	parent := e.register(wire.SessionRequest{Agent: "runner"})
	child, err := e.clientFor(parent).Register(t.Context(), wire.SessionRequest{Agent: "bg", Parent: parent.ID, Cwd: e.work, Workspace: []string{e.work}})
	if err != nil {
		t.Fatal(err)
	}
	e.srv.Engine().End(parent.ID, grants.EndReasonSessionEnd)
	hook := &wire.CheckRequest{Cwd: e.work, Agent: "claude"}
	resolve := func(ids engine.IDs, token string, lineage []engine.LineageEntry, auto *wire.CheckRequest) (engine.Call, *engine.Error) {
		return e.srv.Engine().Resolve(engine.Ask{Declared: engine.SrcURL | engine.SrcQuery | engine.SrcHeader | engine.SrcBody | engine.SrcEnv,
			IDs: ids, Token: token, Caller: engine.FixedLineage(lineage, nil), Check: auto})
	}
	if _, err := resolve(engine.IDs{Body: "hook-1"}, "", agentLineage, hook); err != nil {
		t.Fatalf("auto-register hook session: %v", err)
	}
	otherAgent := []engine.LineageEntry{{Proc: engine.Proc{PID: 7001, Start: 9}, Comm: "pathgrant-hook"}, {Proc: engine.Proc{PID: 7000, Start: 9}, Comm: "claude"}}

	tests := []struct {
		name    string
		src     engine.IDs
		token   string
		lineage []engine.LineageEntry
		auto    *wire.CheckRequest
		status  int // 0: resolved
		want    string
		kind    grants.Kind
	}{
		{name: "url", src: engine.IDs{URL: tok.ID}, token: tok.Token, want: tok.ID},
		{name: "header", src: engine.IDs{Header: tok.ID}, token: tok.Token, want: tok.ID},
		{name: "body", src: engine.IDs{Body: tok.ID}, token: tok.Token, want: tok.ID},
		{name: "env", src: engine.IDs{Env: tok.ID}, token: tok.Token, want: tok.ID},
		{name: "all agree", src: engine.IDs{URL: tok.ID, Query: tok.ID, Header: tok.ID, Body: tok.ID, Env: tok.ID}, token: tok.Token, want: tok.ID},
		{name: "query", src: engine.IDs{Query: tok.ID}, token: tok.Token, want: tok.ID},
		{name: "url and query disagree", src: engine.IDs{URL: tok.ID, Query: "x"}, token: tok.Token, status: http.StatusConflict, kind: grants.KindConflict},
		{name: "url and header disagree", src: engine.IDs{URL: tok.ID, Header: "x"}, token: tok.Token, status: http.StatusConflict, kind: grants.KindConflict},
		{name: "header and body disagree", src: engine.IDs{Header: tok.ID, Body: "x"}, token: tok.Token, status: http.StatusConflict, kind: grants.KindConflict},
		{name: "body and env disagree", src: engine.IDs{Body: tok.ID, Env: "x"}, token: tok.Token, status: http.StatusConflict, kind: grants.KindConflict},
		{name: "conflict is refused even when one is valid and auto is on", src: engine.IDs{Body: "new", Env: tok.ID}, auto: hook, status: http.StatusConflict, kind: grants.KindConflict},
		{name: "no source", src: engine.IDs{}, token: tok.Token, status: http.StatusBadRequest, kind: grants.KindConflict},
		{name: "unknown", src: engine.IDs{Header: "nope"}, status: http.StatusNotFound, kind: grants.KindStale},
		{name: "unknown without cwd is not registered", src: engine.IDs{Body: "nope"}, auto: &wire.CheckRequest{Cwd: "relative"}, status: http.StatusNotFound, kind: grants.KindStale},
		{name: "ended", src: engine.IDs{Header: ended.ID}, token: ended.Token, status: http.StatusGone, kind: grants.KindStale},
		{name: "expired", src: engine.IDs{Header: expired.ID}, token: expired.Token, status: http.StatusGone, kind: grants.KindStale},
		{name: "parent ended", src: engine.IDs{Header: child.ID}, token: child.Token, status: http.StatusGone, kind: grants.KindStale},
		{name: "wrong token", src: engine.IDs{Header: tok.ID}, token: ended.Token, status: http.StatusForbidden, kind: grants.KindForged},
		{name: "no token", src: engine.IDs{Header: tok.ID}, status: http.StatusForbidden, kind: grants.KindForged},
		{name: "hook session from its agent", src: engine.IDs{Body: "hook-1"}, lineage: agentLineage, want: "hook-1"},
		{name: "hook session from another agent", src: engine.IDs{Body: "hook-1"}, lineage: otherAgent, status: http.StatusForbidden, kind: grants.KindForged},
		{name: "hook session with a token but no lineage", src: engine.IDs{Body: "hook-1"}, token: tok.Token, status: http.StatusForbidden, kind: grants.KindForged},
		{name: "first sight registers", src: engine.IDs{Body: "hook-2"}, lineage: otherAgent, auto: hook, want: "hook-2"},
		{name: "client id binds on first sight", src: engine.IDs{Env: tok.ID}, token: tok.Token, auto: client("claude-1"), want: tok.ID},
		{name: "client id alone finds its session", src: engine.IDs{}, token: tok.Token, auto: client("claude-1"), want: tok.ID},
		{name: "client id bound to another session", src: engine.IDs{Env: tok2.ID}, token: tok2.Token, auto: client("claude-1"), status: http.StatusConflict, kind: grants.KindConflict},
		{name: "client id naming another session", src: engine.IDs{Env: tok.ID}, token: tok.Token, auto: client(tok2.ID), status: http.StatusConflict, kind: grants.KindConflict},
		{name: "client id of a forged request is not bound", src: engine.IDs{Env: tok2.ID}, token: tok.Token, auto: client("claude-2"), status: http.StatusForbidden, kind: grants.KindForged},
		{name: "so it stays free", src: engine.IDs{Env: tok.ID}, token: tok.Token, auto: client("claude-2"), want: tok.ID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := auditCount(t, e, "")
			c, err := resolve(tt.src, tt.token, tt.lineage, tt.auto)
			after := auditCount(t, e, "")
			if tt.status == 0 {
				if err != nil || c.SessionID() != tt.want {
					t.Fatalf("resolved %v; want %s", err, tt.want)
				}
				if after != before {
					t.Fatalf("a resolved request left %d audit records", after-before)
				}
				return
			}
			if err == nil || fromEngine(err).status != tt.status || err.Kind != tt.kind {
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
