package ipc

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"pathgrant/grants"
	"pathgrant/guard"
	"pathgrant/wire"
)

// TestEndSessionEndsEverythingOfIt: ending a session ends its session and
// once grants (with the reason in their state), its child sessions, and
// its pending requests: a check waiting on one is answered deny saying
// the session ended, the prompt is withdrawn, and every step is published.
// Device grants stay.
func TestEndSessionEndsEverythingOfIt(t *testing.T) {
	for _, why := range []grants.EndReason{grants.EndReasonAgentExited, grants.EndReasonSessionEnd} {
		t.Run(string(why), func(t *testing.T) {
			e := newTestEnv(t)
			parent := e.register(wire.SessionRequest{Agent: "a"})
			child, err := e.clientFor(parent).Register(context.Background(), // a child needs its parent's token
				wire.SessionRequest{Agent: "a", Parent: parent.ID, Cwd: e.work, Workspace: []string{e.work}})
			if err != nil {
				t.Fatal(err)
			}
			put := func(scope grants.Scope, path string) grants.Grant {
				g, err := e.store.Put(grants.NewGrant{Scope: scope, Op: guard.OpRead, Path: path, Kind: guard.KindFile, Session: parent.ID})
				if err != nil {
					t.Fatal(err)
				}
				return g
			}
			sg, dg := put(grants.ScopeSession, e.dl+"/report.csv"), put(grants.ScopeDevice, e.dl+"/other.csv")
			events, cancel := e.srv.hub.subscribe(parent.ID)
			defer cancel()

			waiting := make(chan wire.Answer, 1)
			go func() {
				ans, err := e.clientFor(parent).Check(context.Background(),
					wire.CheckRequest{Op: guard.OpRead, Path: e.home + "/Downloads/third.csv", WaitMS: 20000})
				if err != nil {
					t.Errorf("waiting check: %v", err)
				}
				waiting <- ans
			}()
			mustWrite(t, e.home+"/Downloads/third.csv", "x")
			req := e.waitPending(1)[0]

			if _, err := e.srv.endSession(e.srv.sessions.get(parent.ID), why); err != nil {
				t.Fatal(err)
			}
			select {
			case ans := <-waiting:
				if ans.Decision != guard.Deny || !strings.Contains(ans.Reason, "session ended ("+string(why)+")") {
					t.Errorf("waiting check answered %s %q, want a deny saying the session ended", ans.Decision, ans.Reason)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("the waiting check was not answered")
			}
			if got, _ := e.store.Get(sg.ID); got.State(time.Now()) != "ended ("+string(why)+")" {
				t.Errorf("session grant state %q", got.State(time.Now()))
			}
			if got, _ := e.store.Get(dg.ID); got.State(time.Now()) != "live" {
				t.Errorf("device grant state %q, want live", got.State(time.Now()))
			}
			if r, _, _ := e.srv.queue.get(req.ID); r.State != wire.StateEnded {
				t.Errorf("request state %q, want %q", r.State, wire.StateEnded)
			}
			if e.approver.withdrawn.Load() != 1 {
				t.Errorf("prompt withdrawn %d times, want 1", e.approver.withdrawn.Load())
			}
			if c := e.srv.sessions.get(child.ID); e.srv.chainLive(c) || c.reason() != grants.EndReasonParentEnded {
				t.Errorf("child session live=%v reason %q, want ended with its parent", e.srv.chainLive(c), c.reason())
			}
			if live, _ := e.store.LiveSessions(); slices.ContainsFunc(live, func(s grants.Session) bool {
				return s.ID == parent.ID || s.ID == child.ID
			}) {
				t.Errorf("store sessions still live: %+v", live)
			}
			if _, err := e.srv.Decide(req.ID, wire.Decision{Scope: "session"}); err == nil {
				t.Error("the ended request was approved")
			}
			var types []string
			for len(events) > 0 {
				types = append(types, (<-events).Type)
			}
			for _, want := range []string{wire.EventGrantEnded, wire.EventRequestDecided, wire.EventSessionEnded} {
				if !slices.Contains(types, want) {
					t.Errorf("events %v lack %s", types, want)
				}
			}
			if n, _ := e.srv.endSession(e.srv.sessions.get(parent.ID), grants.EndReasonSessionEnd); n != 0 {
				t.Errorf("ending again ended %d grants", n)
			}
		})
	}
}
