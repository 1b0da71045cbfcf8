package grants

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"pathgrant/guard"
)

// TestEndSessionForRecordsWhy ends a session for each reason: its session
// and once grants end with the reason in their state, the session stores
// it, the audit says it, and device grants stay live.
func TestEndSessionForRecordsWhy(t *testing.T) {
	for _, why := range []EndReason{EndReasonAgentExited, EndReasonSessionEnd, EndReasonParentEnded} {
		t.Run(string(why), func(t *testing.T) {
			e := newEnv(t, nil)
			e.session("s1")
			sg := e.put(ScopeSession, e.file("a.csv"), guard.KindFile)
			og := e.put(ScopeOnce, e.file("b.csv"), guard.KindFile)
			dg := e.put(ScopeDevice, e.file("c.csv"), guard.KindFile)

			ended, err := e.s.EndSessionFor("s1", why)
			if err != nil {
				t.Fatalf("EndSessionFor: %v", err)
			}
			ids := []string{}
			for _, g := range ended {
				ids = append(ids, g.ID)
			}
			slices.Sort(ids)
			want := []string{sg.ID, og.ID}
			slices.Sort(want)
			if !slices.Equal(ids, want) {
				t.Fatalf("ended %v, want %v", ids, want)
			}
			wantState := "ended (" + string(why) + ")"
			for _, id := range want {
				if st := e.get(id).State(e.clock.Now()); st != wantState {
					t.Errorf("grant %s state = %q, want %q", id, st, wantState)
				}
			}
			if st := e.get(dg.ID).State(e.clock.Now()); st != "live" {
				t.Errorf("device grant state = %q, want live", st)
			}
			sess, err := e.s.loadSession("s1")
			if err != nil || sess.EndReason != why || sess.Ended.IsZero() {
				t.Errorf("session = %+v, %v; want ended for %q", sess, err, why)
			}
			n := 0
			for _, r := range e.audit() {
				if r.Session == "s1" && r.Kind == KindExpire && strings.Contains(r.Reason, string(why)) {
					n++
				}
			}
			if n != 2 {
				t.Errorf("%d expire records name %q, want one per grant", n, why)
			}
			again, err := e.s.EndSessionFor("s1", EndReasonSessionEnd)
			if err != nil || len(again) != 0 {
				t.Errorf("ending again = %v, %v; want a no-op", again, err)
			}
			if sess, _ := e.s.loadSession("s1"); sess.EndReason != why {
				t.Errorf("ending again changed the reason to %q", sess.EndReason)
			}
		})
	}
}

// TestLiveSessionsKeepsBinding lists only live sessions, each with the
// process it is bound to and the daemon's spec, as started.
func TestLiveSessionsKeepsBinding(t *testing.T) {
	e := newEnv(t, nil)
	spec := json.RawMessage(`{"cwd":"/w"}`)
	for _, s := range []Session{
		{ID: "live", Process: &Process{PID: 42, Start: 7}, Spec: spec},
		{ID: "gone", Process: &Process{PID: 43, Start: 8}},
		{ID: "plain"},
	} {
		if _, err := e.s.StartSession(s); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.s.EndSessionFor("gone", EndReasonAgentExited); err != nil {
		t.Fatal(err)
	}
	e.reopen(nil)
	live, err := e.s.LiveSessions()
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]Session{}
	for _, s := range live {
		byID[s.ID] = s
	}
	tests := []struct {
		id       string
		present  bool
		process  *Process
		wantSpec string
	}{
		{"live", true, &Process{PID: 42, Start: 7}, `{"cwd":"/w"}`},
		{"gone", false, nil, ""},
		{"plain", true, nil, ""},
	}
	for _, tc := range tests {
		t.Run(tc.id, func(t *testing.T) {
			s, ok := byID[tc.id]
			switch {
			case ok != tc.present:
				t.Fatalf("listed = %v, want %v", ok, tc.present)
			case !ok:
				return
			case (s.Process == nil) != (tc.process == nil) || s.Process != nil && *s.Process != *tc.process:
				t.Errorf("process = %+v, want %+v", s.Process, tc.process)
			case string(s.Spec) != tc.wantSpec:
				t.Errorf("spec = %s, want %s", s.Spec, tc.wantSpec)
			}
		})
	}
}
