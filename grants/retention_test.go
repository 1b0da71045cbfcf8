package grants

import (
	"errors"
	"strings"
	"testing"
	"time"

	"pathgrant/guard"
)

// TestPrune: sessions that ended (or expired) and audit records from
// before the cutoff go; newer ones, live sessions and grants stay; a prune
// that removed anything leaves exactly one record with the counts.
func TestPrune(t *testing.T) {
	e := newEnv(t, nil)
	day := 24 * time.Hour
	start := func(id string) {
		if _, err := e.s.StartSession(Session{ID: id, Expires: e.clock.Now().Add(400 * day)}); err != nil {
			t.Fatal(err)
		}
	}
	start("old")
	e.s.Audit(Record{Kind: KindDeny, Session: "old", Reason: "old deny"})
	g, err := e.s.Put(NewGrant{Scope: ScopeDevice, Op: guard.OpRead, Path: e.file("report.csv"), Kind: guard.KindFile, Session: "old"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.s.EndSession("old"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.s.StartSession(Session{ID: "lapsed", Expires: e.clock.Now().Add(day)}); err != nil {
		t.Fatal(err)
	}
	e.clock.Add(50 * day)
	start("recent")
	if _, err := e.s.EndSession("recent"); err != nil {
		t.Fatal(err)
	}
	start("live")
	cutoff := e.clock.Now().Add(-10 * day) // between the two batches

	tests := []struct {
		name string
		want Pruned
	}{
		{"first prune", Pruned{Sessions: 2, Records: 2}}, // old and lapsed; the deny and the approval
		{"nothing left to prune", Pruned{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before, _ := e.s.AuditRecords(AuditFilter{Kind: KindPrune})
			got, err := e.s.Prune(cutoff)
			if err != nil || got != tt.want {
				t.Fatalf("Prune = %+v, %v; want %+v", got, err, tt.want)
			}
			after, _ := e.s.AuditRecords(AuditFilter{Kind: KindPrune})
			wantRecs := 0
			if tt.want != (Pruned{}) {
				wantRecs = 1
			}
			if len(after)-len(before) != wantRecs {
				t.Fatalf("%d prune records, want %d", len(after)-len(before), wantRecs)
			}
			if wantRecs == 1 && !strings.Contains(after[len(after)-1].Reason, "pruned 2 ended session(s) and 2 audit record(s)") {
				t.Errorf("prune record %q lacks the counts", after[len(after)-1].Reason)
			}
		})
	}
	for id, kept := range map[string]bool{"old": false, "lapsed": false, "recent": true, "live": true} {
		if _, err := e.s.loadSession(id); (err == nil) != kept || (!kept && !errors.Is(err, ErrNotFound)) {
			t.Errorf("session %s after prune: %v, want kept=%v", id, err, kept)
		}
	}
	if recs, _ := e.s.AuditRecords(AuditFilter{}); len(recs) == 0 || recs[0].Time.Before(cutoff) {
		t.Errorf("records from before the cutoff remain: %+v", recs)
	}
	if _, err := e.s.Get(g.ID); err != nil {
		t.Errorf("grant of a pruned session: %v, want kept", err)
	}
	if n, err := e.s.sweep(); err != nil || n != 0 {
		t.Errorf("sweep after pruning a lapsed session = %d, %v; want nothing to do", n, err)
	}
}
