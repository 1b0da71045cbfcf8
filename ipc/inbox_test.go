package ipc

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"pathgrant/grants"
	"pathgrant/guard"
	"pathgrant/wire"
)

// updatingApprover is a recordingApprover that also follows requests as
// their waiting calls change (engine.Updater), as the inbox window does.
type updatingApprover struct {
	recordingApprover
	mu      sync.Mutex
	updates []wire.Request
}

func (a *updatingApprover) Update(r wire.Request) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.updates = append(a.updates, r)
}

func (a *updatingApprover) lastUpdate() wire.Request {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.updates) == 0 {
		return wire.Request{}
	}
	return a.updates[len(a.updates)-1]
}

// waitWaiting polls until the one pending request has n waiting calls.
func (e *testEnv) waitWaiting(n int) wire.Request {
	e.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if p := e.srv.Engine().Pending(); len(p) == 1 && p[0].Waiting == n {
			return p[0]
		}
		time.Sleep(5 * time.Millisecond)
	}
	e.t.Fatalf("the request never had %d waiting calls: %+v", n, e.srv.Engine().Pending())
	return wire.Request{}
}

// TestDecisionAnswersEveryWaitingCall: a decision answers every call
// waiting on the request at that moment, for each scope: 50 calls wait,
// one approval (or denial) answers all 50, and nothing is left pending.
// An approval for once serves those 50 and nothing after them.
func TestDecisionAnswersEveryWaitingCall(t *testing.T) {
	const calls = 50
	for _, tc := range []struct {
		scope    string
		remember bool
		want     guard.Verdict
		next     guard.Verdict // a new call after the decision
		reason   string        // in every waiting call's answer
	}{
		{scope: "once", want: guard.Allow, next: guard.Deny},
		{scope: "session", want: guard.Allow, next: guard.Allow},
		{scope: "deny", want: guard.Deny, next: guard.Deny, reason: "denied by the person in pathgrant's window"},
		{scope: "deny", remember: true, want: guard.Deny, next: guard.Deny, reason: "do not retry"},
	} {
		name := tc.scope
		if tc.remember {
			name += " remembered"
		}
		t.Run(name, func(t *testing.T) {
			e := newTestEnv(t)
			c := e.clientFor(e.register(wire.SessionRequest{Agent: "claude"}))
			read := wire.CheckRequest{Op: guard.OpRead, Path: e.dl + "/report.csv", WaitMS: 30_000}
			answers := make(chan wire.Answer, calls)
			var wg sync.WaitGroup
			for range calls {
				wg.Add(1)
				go func() {
					defer wg.Done()
					ans, err := c.Check(context.Background(), read)
					if err != nil {
						t.Error(err)
					}
					answers <- ans
				}()
			}
			r := e.waitWaiting(calls)
			if r.WaitUntil.Before(time.Now()) {
				t.Errorf("50 calls wait, but the request says they stopped at %v", r.WaitUntil)
			}
			e.as(userLineage)
			if _, err := e.client.Decide(context.Background(), r.ID, wire.Decision{Scope: tc.scope, Remember: tc.remember, Code: e.codeFitting(r.ID, wire.Decision{Scope: tc.scope})}); err != nil {
				t.Fatal(err)
			}
			wg.Wait()
			close(answers)
			n := 0
			for ans := range answers {
				if ans.Decision != tc.want || !strings.Contains(ans.Reason, tc.reason) {
					t.Errorf("answer %+v, want %s (%q)", ans, tc.want, tc.reason)
				}
				n++
			}
			if n != calls || len(e.srv.Engine().Pending()) != 0 {
				t.Fatalf("%d answers, %d pending; want %d and 0", n, len(e.srv.Engine().Pending()), calls)
			}
			e.as(agentLineage)
			read.WaitMS = 0
			if ans, err := c.Check(context.Background(), read); err != nil || ans.Decision != tc.next {
				t.Fatalf("the next call: %+v %v, want %s", ans, err, tc.next)
			}
		})
	}
}

// TestOnceServesTheNextTry: an approval for once that no call waited for
// serves the agent's next try, and only that one.
func TestOnceServesTheNextTry(t *testing.T) {
	e := newTestEnv(t)
	c := e.clientFor(e.register(wire.SessionRequest{Agent: "claude"}))
	read := wire.CheckRequest{Op: guard.OpRead, Path: e.dl + "/report.csv"}
	ans, err := c.Check(context.Background(), read)
	if err != nil || ans.Pending == "" {
		t.Fatalf("%+v %v", ans, err)
	}
	e.as(userLineage)
	if _, err := e.client.Decide(context.Background(), ans.Pending, wire.Decision{Scope: "once", Code: e.code(ans.Pending)}); err != nil {
		t.Fatal(err)
	}
	e.as(agentLineage)
	for i, want := range []guard.Verdict{guard.Allow, guard.Deny} {
		if ans, err := c.Check(context.Background(), read); err != nil || ans.Decision != want {
			t.Fatalf("try %d: %+v %v, want %s", i+1, ans, err, want)
		}
	}
}

// TestWaitingClock: the prompt follows the waiting calls (engine.Updater)
// and the one clock: shown while its call waits, WaitUntil is that call's
// deadline; once it gives up, Waiting is 0 and WaitUntil is when it
// stopped.
func TestWaitingClock(t *testing.T) {
	a := &updatingApprover{}
	e := newTestEnv(t, func(c *Config) { c.Approver = a })
	c := e.clientFor(e.register(wire.SessionRequest{Agent: "claude"}))
	start := time.Now()
	ans, err := c.Check(context.Background(), wire.CheckRequest{Op: guard.OpRead, Path: e.dl + "/report.csv", WaitMS: 300})
	if err != nil || ans.Pending == "" || !strings.Contains(ans.Reason, "needs the person's approval") {
		t.Fatalf("%+v %v", ans, err)
	}
	first := *a.last.Load() // the prompt as shown: the call that raised it waits already
	if first.Waiting != 1 || first.WaitUntil.Sub(start) < 250*time.Millisecond || first.WaitUntil.Sub(start) > 2*time.Second {
		t.Errorf("while waiting: %d waiting until %v (started %v)", first.Waiting, first.WaitUntil, start)
	}
	last := a.lastUpdate()
	p := e.srv.Engine().Pending()
	if last.Waiting != 0 || len(p) != 1 || p[0].Waiting != 0 || p[0].WaitUntil.After(time.Now()) {
		t.Fatalf("after the wait: update %+v, pending %+v", last, p)
	}
}

// TestRememberedDenial: "Deny for this session" denies the same access
// from that session at once, with no new request or prompt, and tells the
// agent not to retry; another session still asks; lifting it (by a
// prefix) asks again; it ends with the session.
func TestRememberedDenial(t *testing.T) {
	e := newTestEnv(t)
	s := e.register(wire.SessionRequest{Agent: "claude"})
	c := e.clientFor(s)
	read := wire.CheckRequest{Op: guard.OpRead, Path: e.dl + "/report.csv"}
	ans, _ := c.Check(context.Background(), read)
	e.as(userLineage)
	if _, err := e.client.Decide(context.Background(), ans.Pending, wire.Decision{Scope: "deny", Remember: true}); err != nil {
		t.Fatal(err)
	}
	shown := e.approver.shown.Load()
	e.as(agentLineage)
	for range 3 {
		ans, err := c.Check(context.Background(), read)
		if err != nil || ans.Decision != guard.Deny || ans.Pending != "" || ans.Eligible || !strings.Contains(ans.Reason, "do not retry") {
			t.Fatalf("remembered: %+v %v", ans, err)
		}
	}
	if e.approver.shown.Load() != shown || len(e.srv.Engine().Pending()) != 0 {
		t.Fatalf("a remembered denial opened a prompt")
	}
	other := e.clientFor(e.register(wire.SessionRequest{Agent: "claude"}))
	otherAns, _ := other.Check(context.Background(), read)
	if otherAns.Pending == "" {
		t.Fatalf("another session does not ask: %+v", otherAns)
	}
	e.as(userLineage)
	if _, err := e.client.Decide(context.Background(), otherAns.Pending, wire.Decision{Scope: "deny", Remember: true}); err != nil {
		t.Fatal(err)
	}
	dens, err := e.client.Denials(context.Background())
	if err != nil || len(dens) != 2 || dens[0].Session != s.ID || dens[0].Hits != 3 || dens[0].Path != e.dl+"/report.csv" {
		t.Fatalf("denials %+v %v", dens, err)
	}
	if err := e.client.LiftDenial(context.Background(), dens[0].ID[:grants.MinPrefix]); err != nil {
		t.Fatal(err)
	}
	if recs, _ := e.store.AuditRecords(grants.AuditFilter{Kind: grants.KindLift}); len(recs) != 1 {
		t.Fatalf("lift audited %d times", len(recs))
	}
	e.as(agentLineage)
	ans, _ = c.Check(context.Background(), read)
	if ans.Pending == "" {
		t.Fatalf("lifted, but the access does not ask again: %+v", ans)
	}
	e.as(userLineage)
	if _, err := e.client.Decide(context.Background(), ans.Pending, wire.Decision{Scope: "deny", Remember: true}); err != nil {
		t.Fatal(err)
	}
	e.as(agentLineage)
	if err := c.EndSession(context.Background(), s.ID); err != nil {
		t.Fatal(err)
	}
	e.as(userLineage)
	// the other session's stays: it has not ended
	if dens, _ := e.client.Denials(context.Background()); len(dens) != 1 || dens[0].Session == s.ID {
		t.Fatalf("the ended session's denials remain: %+v", dens)
	}
}

// TestGrantFor: a session or device grant limited in time serves until
// then, and ends on time, audited as expired.
func TestGrantFor(t *testing.T) {
	for _, scope := range []string{"session", "device"} {
		t.Run(scope, func(t *testing.T) {
			e := newTestEnv(t)
			c := e.clientFor(e.register(wire.SessionRequest{Agent: "claude"}))
			read := wire.CheckRequest{Op: guard.OpRead, Path: e.dl + "/report.csv"}
			ans, _ := c.Check(context.Background(), read)
			e.as(userLineage)
			r, err := e.client.Decide(context.Background(), ans.Pending, wire.Decision{Scope: scope, For: "1s", Code: e.codeFitting(ans.Pending, wire.Decision{Scope: scope, For: "1s"})})
			if err != nil {
				t.Fatal(err)
			}
			g, _ := e.store.Get(r.Grant)
			if until := time.Until(g.Expires); until <= 0 || until > 1100*time.Millisecond {
				t.Fatalf("grant expires in %v, want about 1s", until)
			}
			e.as(agentLineage)
			if ans, _ := c.Check(context.Background(), read); ans.Decision != guard.Allow {
				t.Fatalf("within its time: %+v", ans)
			}
			deadline := time.Now().Add(5 * time.Second)
			for auditCount(t, e, grants.KindExpire) == 0 {
				if time.Now().After(deadline) {
					t.Fatal("the grant's end was never audited")
				}
				time.Sleep(20 * time.Millisecond)
			}
			if ans, _ := c.Check(context.Background(), read); ans.Decision != guard.Deny {
				t.Fatalf("after its time: %+v", ans)
			}
		})
	}
}

// TestDecisionRefusals: what a decision may not be, one row each.
func TestDecisionRefusals(t *testing.T) {
	e := newTestEnv(t)
	c := e.clientFor(e.register(wire.SessionRequest{Agent: "claude"}))
	for _, tc := range []struct {
		name string
		path string
		dec  wire.Decision
		want string
	}{
		{"once for a time", "/report.csv", wire.Decision{Scope: "once", For: "1h"}, "takes no duration"},
		{"a bad duration", "/report.csv", wire.Decision{Scope: "session", For: "soon"}, "want a positive duration"},
		{"a negative duration", "/report.csv", wire.Decision{Scope: "session", For: "-1h"}, "want a positive duration"},
		{"over a year", "/report.csv", wire.Decision{Scope: "device", For: "9000h"}, "want a positive duration"},
		{"a denial for a time", "/report.csv", wire.Decision{Scope: "deny", For: "1h"}, "takes no duration"},
		{"an approval remembered", "/report.csv", wire.Decision{Scope: "session", Remember: true}, "remember is for a denial"},
		{"a folder unconfirmed", "/", wire.Decision{Scope: "device"}, "needs the folder confirmed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e.as(agentLineage)
			req := wire.CheckRequest{Op: guard.OpRead, Path: e.dl + tc.path}
			if tc.path == "/" {
				req = wire.CheckRequest{Command: wire.TreeRead(e.dl), Input: `pattern "x"`}
			}
			ans, err := c.Check(context.Background(), req)
			if err != nil || ans.Pending == "" {
				t.Fatalf("%+v %v", ans, err)
			}
			e.as(userLineage)
			dec := tc.dec
			dec.Code = e.codeFitting(ans.Pending, dec)
			_, err = e.client.Decide(context.Background(), ans.Pending, dec)
			if statusOf(err) != 400 || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("%v, want 400 %q", err, tc.want)
			}
			if r, _ := e.srv.Engine().Request(ans.Pending); r.State != wire.StatePending {
				t.Fatalf("a refused decision ended the request: %s", r.State)
			}
			if _, err := e.client.Decide(context.Background(), ans.Pending, wire.Decision{Scope: "deny"}); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestFolderRequestShowsTheToolsInput: a search tool's request shows the
// tool's own input, not the command the hook modelled it as, and a
// confirmed folder grant covers the tree.
func TestFolderRequestShowsTheToolsInput(t *testing.T) {
	e := newTestEnv(t)
	c := e.clientFor(e.register(wire.SessionRequest{Agent: "claude"}))
	req := wire.CheckRequest{Command: wire.TreeRead(e.dl), Tool: "Grep", Input: "pattern \"TODO\" in ~/Downloads\x1b[2J"}
	ans, _ := c.Check(context.Background(), req)
	r, ok := e.srv.Engine().Request(ans.Pending)
	if !ok || r.Command != "" || r.Input != `pattern "TODO" in ~/Downloads\x1b[2J` || r.Suggested.Kind != guard.KindFolder {
		t.Fatalf("request %+v", r)
	}
	e.as(userLineage)
	if _, err := e.client.Decide(context.Background(), r.ID, wire.Decision{Scope: "device", Kind: guard.KindFolder, Code: e.codeFor(r.ID, "device+folder")}); err != nil {
		t.Fatal(err)
	}
	e.as(agentLineage)
	if ans, _ := c.Check(context.Background(), wire.CheckRequest{Op: guard.OpRead, Path: e.dl + "/other.csv"}); ans.Decision != guard.Allow {
		t.Fatalf("the folder grant does not cover the tree: %+v", ans)
	}
}

// TestShellCommandShownAsWritten: the hook's cd prefix is not shown.
func TestShellCommandShownAsWritten(t *testing.T) {
	e := newTestEnv(t)
	c := e.clientFor(e.register(wire.SessionRequest{Agent: "claude"}))
	ans, _ := c.Check(context.Background(), wire.CheckRequest{Command: wire.ShellIn(e.work, "cat ~/Downloads/report.csv"), Tool: "Bash"})
	if r, _ := e.srv.Engine().Request(ans.Pending); r.Command != "cat ~/Downloads/report.csv" || r.SessionStarted.IsZero() {
		t.Fatalf("request %+v", r)
	}
}

// TestSessionsLabelled: the person's session list labels each session by
// agent, project folder and start, says when one ended, and carries no
// token or environment.
func TestSessionsLabelled(t *testing.T) {
	e := newTestEnv(t)
	live := e.register(wire.SessionRequest{Agent: "claude", Env: map[string]string{"SECRET_MARK": "s3cr3t"}})
	ended := e.register(wire.SessionRequest{Agent: "codex"})
	e.as(agentLineage)
	if err := e.clientFor(ended).EndSession(context.Background(), ended.ID); err != nil {
		t.Fatal(err)
	}
	e.as(userLineage)
	got, err := e.client.Sessions(context.Background())
	if err != nil || len(got) != 2 {
		t.Fatalf("sessions %+v %v", got, err)
	}
	byID := map[string]wire.SessionInfo{got[0].ID: got[0], got[1].ID: got[1]}
	if s := byID[live.ID]; s.Agent != "claude" || s.Cwd != e.work || s.Started.IsZero() || !s.Ended.IsZero() {
		t.Errorf("live session %+v", s)
	}
	if s := byID[ended.ID]; s.Agent != "codex" || s.Ended.IsZero() {
		t.Errorf("ended session %+v", s)
	}
	_, raw := send(t, rawClient(e.sock), "GET", "/v1/sessions", nil, nil)
	if strings.Contains(string(raw), live.Token) || strings.Contains(string(raw), "s3cr3t") {
		t.Fatalf("the session list leaks a token or the environment: %s", raw)
	}
}
