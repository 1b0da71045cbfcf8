package ipc

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"pathgrant/wire"
)

// newClockedHold is newHoldEnv for a command whose check said its
// client's own timeout (ms) and its stated purpose, as Claude Code's
// Bash hook does: the command prepared, its hold ticket in hand, and the
// check's time on the daemon's clock.
func newClockedHold(t *testing.T, timeoutMS int) (*holdEnv, time.Time) {
	t.Helper()
	ce := newCapEnv(t)
	ce.launcher.hold = []string{ce.dl}
	const command = "python3 read.py"
	checked := time.Unix(0, ce.clock.Load())
	ans, err := ce.client.Check(context.Background(), wire.CheckRequest{ClientSession: "claude-1", Cwd: ce.work, Agent: "claude",
		Tool: "Bash", Command: "cd -- " + ce.work + " && " + command, ExecCommand: command,
		Purpose: "Count the lines of the report", ToolTimeoutMS: timeoutMS})
	if err != nil || ans.Exec == nil || ans.Exec.Capability == "" {
		t.Fatalf("check: %+v %v; want an exec capability", ans, err)
	}
	p, st := ce.prepare(t, ans.Exec.Capability, command, "")
	if st != http.StatusOK || p.Hold == nil {
		t.Fatalf("prepare: %d, hold %+v", st, p.Hold)
	}
	return &holdEnv{capEnv: ce, command: command, p: p}, checked
}

// waitingRequest is the one pending request once a call waits on it.
func waitingRequest(t *testing.T, he *holdEnv) wire.Request {
	t.Helper()
	for range 300 {
		if p := he.srv.Engine().Pending(); len(p) == 1 && p[0].Waiting == 1 {
			return p[0]
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("no request waited")
	return wire.Request{}
}

// TestHoldAgentClock: a held open of a command whose client has a tool
// timeout of its own waits no longer than that clock (not the hold's own
// bound), shows the call's stated purpose, and, when the command ends or
// its clock runs out before a decision, its request ends in words the
// app is sent (EventRequestDecided, StateEnded, Request.Ended).
func TestHoldAgentClock(t *testing.T) {
	const claudeClock = "Claude Code's Bash tool stops a command after 2 minutes"
	tests := []struct {
		name      string
		timeoutMS int
		interrupt bool   // the command is killed while it waits
		ended     string // the request's Ended
		line      string // in the held open's refusal line
	}{
		{"the command killed before a decision", 120000, true,
			"the command ended before a decision (" + claudeClock + ")", ""},
		{"the client's clock ran out", 300, false,
			"the command's time ran out before a decision (Claude Code's Bash tool stops a command after 300 milliseconds)",
			"no decision before Claude Code's Bash tool stops a command after 300 milliseconds"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			he, checked := newClockedHold(t, tt.timeoutMS)
			events, stop := he.srv.Engine().Subscribe(he.p.Session)
			defer stop()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			type held struct {
				ans wire.HoldAnswer
				st  int
			}
			done := make(chan held, 1)
			go func() {
				ans, st := he.hold(ctx, t, he.dl+"/report.csv", "")
				done <- held{ans, st}
			}()
			r := waitingRequest(t, he)
			limit := checked.Add(time.Duration(tt.timeoutMS) * time.Millisecond)
			if r.WaitUntil.After(limit) || r.WaitUntil.IsZero() {
				t.Errorf("WaitUntil %v; want at most the check's time plus the tool's timeout, %v", r.WaitUntil, limit)
			}
			if r.Purpose != "Count the lines of the report" {
				t.Errorf("Purpose %q; want the call's stated purpose", r.Purpose)
			}
			if tt.interrupt {
				cancel()
			}
			h := <-done
			if !tt.interrupt && (h.st != http.StatusOK || h.ans.Allowed || !strings.Contains(h.ans.Line, tt.line)) {
				t.Errorf("hold: %d %+v; want a refusal saying %q", h.st, h.ans, tt.line)
			}
			ev := decidedEvent(t, events, r.ID)
			if ev.State != wire.StateEnded || ev.Ended != tt.ended {
				t.Errorf("event's request: state %q, ended %q; want %q, %q", ev.State, ev.Ended, wire.StateEnded, tt.ended)
			}
			if got, _ := he.srv.Engine().Request(r.ID); got.State != wire.StateEnded || got.Ended != tt.ended {
				t.Errorf("request: state %q, ended %q; want %q, %q", got.State, got.Ended, wire.StateEnded, tt.ended)
			}
		})
	}
	t.Run("the clock already up: nobody asked", func(t *testing.T) {
		he, checked := newClockedHold(t, 100)
		he.clock.Store(checked.Add(time.Second).UnixNano())
		ans, st := he.hold(context.Background(), t, he.dl+"/report.csv", "")
		if st != http.StatusOK || ans.Allowed || ans.Request != "" || !strings.Contains(ans.Line, "not asked") {
			t.Errorf("hold: %d %+v; want refused at once, no request", st, ans)
		}
		if p := he.srv.Engine().Pending(); len(p) != 0 {
			t.Errorf("pending %+v: a request raised for a command its client stops now", p)
		}
	})
	t.Run("no clock: the hold's own bound", func(t *testing.T) {
		he, checked := newClockedHold(t, 0)
		go he.hold(context.Background(), t, he.dl+"/report.csv", "")
		r := waitingRequest(t, he)
		if !r.WaitUntil.After(checked.Add(2 * time.Minute)) {
			t.Errorf("WaitUntil %v: a command with no client clock waits the hold's own bound", r.WaitUntil)
		}
		if _, err := he.srv.Engine().Decide(r.ID, wire.Decision{Scope: "deny"}); err != nil {
			t.Fatal(err)
		}
	})
}

// decidedEvent is the request of id's EventRequestDecided, within a few
// seconds.
func decidedEvent(t *testing.T, events <-chan wire.Event, id string) wire.Request {
	t.Helper()
	timeout := time.After(5 * time.Second)
	for {
		select {
		case ev := <-events:
			if ev.Type == wire.EventRequestDecided && ev.Request != nil && ev.Request.ID == id {
				return *ev.Request
			}
		case <-timeout:
			t.Fatalf("no %s event for request %s", wire.EventRequestDecided, id)
			return wire.Request{}
		}
	}
}
