package ipc

import (
	"context"
	"slices"
	"testing"
	"time"

	"pathgrant/grants"
	"pathgrant/guard"
	"pathgrant/wire"
)

// TestRevokeSession: one request revokes every live grant of a session,
// device grants included, publishes one grant.revoked event per grant and
// leaves one revoke record each; other sessions' grants stay.
func TestRevokeSession(t *testing.T) {
	e := newTestEnv(t)
	s := e.register(wire.SessionRequest{Agent: "a"})
	other := e.register(wire.SessionRequest{Agent: "b"})
	put := func(scope grants.Scope, session, path string) string {
		t.Helper()
		g, err := e.store.Put(grants.NewGrant{Scope: scope, Op: guard.OpRead, Path: path, Kind: guard.KindFile, Session: session})
		if err != nil {
			t.Fatal(err)
		}
		return g.ID
	}
	want := []string{
		put(grants.ScopeSession, s.ID, e.dl+"/report.csv"),
		put(grants.ScopeOnce, s.ID, e.dl+"/other.csv"),
		put(grants.ScopeDevice, s.ID, e.dl+"/other.csv"),
	}
	kept := put(grants.ScopeSession, other.ID, e.dl+"/report.csv")
	events, cancel := e.srv.hub.subscribe("")
	defer cancel()

	tests := []struct {
		name string
		want []string
	}{
		{"live grants revoked", want},
		{"again: nothing left", []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := auditCount(t, e, grants.KindRevoke)
			got, err := e.client.RevokeSession(context.Background(), s.ID)
			if err != nil || !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(tt.want))) {
				t.Fatalf("RevokeSession = %v, %v; want %v", got, err, tt.want)
			}
			if n := auditCount(t, e, grants.KindRevoke) - before; n != len(tt.want) {
				t.Errorf("%d revoke records, want %d", n, len(tt.want))
			}
			if seen := revokedEvents(events, len(tt.want)); !slices.Equal(slices.Sorted(slices.Values(seen)), slices.Sorted(slices.Values(tt.want))) {
				t.Errorf("grant.revoked events for %v, want %v", seen, tt.want)
			}
		})
	}
	if live, _ := e.store.List(grants.Filter{}); len(live) != 1 || live[0].ID != kept {
		t.Errorf("live grants after revoking session %s: %+v, want only %s", s.ID, live, kept)
	}
}

// revokedEvents collects the grant ids of n grant.revoked events, and
// waits briefly for any extra one.
func revokedEvents(events <-chan wire.Event, n int) []string {
	var ids []string
	timeout := time.After(2 * time.Second)
	for {
		wait := timeout
		if len(ids) >= n {
			wait = time.After(50 * time.Millisecond)
		}
		select {
		case ev := <-events:
			if ev.Type == wire.EventGrantRevoked {
				ids = append(ids, ev.GrantID)
			}
		case <-wait:
			return ids
		}
	}
}
