package tray

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"pathgrant/grants"
	"pathgrant/guard"
	"pathgrant/wire"
)

// fakeBackend is an in-memory Backend that records what it was asked.
type fakeBackend struct {
	mu       sync.Mutex
	grants   []grants.Grant
	records  []grants.Record
	pending  []wire.Request
	revoked  []string
	sessions []string
	filter   grants.AuditFilter
	fail     error
}

func (f *fakeBackend) Pending() ([]wire.Request, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.pending, f.fail
}
func (f *fakeBackend) Grants() ([]grants.Grant, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.grants, f.fail
}
func (f *fakeBackend) Audit(flt grants.AuditFilter) ([]grants.Record, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.filter = flt
	var out []grants.Record
	for _, r := range f.records {
		if (flt.Session == "" || r.Session == flt.Session) && (flt.Kind == "" || r.Kind == flt.Kind) {
			out = append(out, r)
		}
	}
	return out, f.fail
}
func (f *fakeBackend) Revoke(id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.revoked = append(f.revoked, id)
	f.grants = slicesDelete(f.grants, func(g grants.Grant) bool { return g.ID == id })
	return nil
}
func (f *fakeBackend) RevokeSession(s string) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sessions = append(f.sessions, s)
	n := len(f.grants)
	f.grants = slicesDelete(f.grants, func(g grants.Grant) bool { return g.Session == s })
	return n - len(f.grants), nil
}
func (f *fakeBackend) Decide(string, wire.Decision) error { return nil }

func slicesDelete(gs []grants.Grant, del func(grants.Grant) bool) []grants.Grant {
	var out []grants.Grant
	for _, g := range gs {
		if !del(g) {
			out = append(out, g)
		}
	}
	return out
}

func fixtureBackend() *fakeBackend {
	now := time.Now()
	return &fakeBackend{
		grants: []grants.Grant{
			{ID: "g1", Scope: grants.ScopeSession, Op: guard.OpRead, Path: "/home/u/Downloads/a.csv", Kind: guard.KindFile, Session: "sessAAAA1111", Created: now},
			{ID: "g2", Scope: grants.ScopeDevice, Op: guard.OpRead, Path: "/home/u/Downloads/data", Kind: guard.KindFolder, Session: "sessBBBB2222", Created: now},
		},
		records: []grants.Record{
			{Seq: 1, Time: now, Kind: grants.KindRequest, Session: "sessAAAA1111", Op: guard.OpRead, Path: "/home/u/Downloads/a.csv"},
			{Seq: 2, Time: now, Kind: grants.KindApprove, Session: "sessAAAA1111", Op: guard.OpRead, Path: "/home/u/Downloads/a.csv"},
			{Seq: 3, Time: now, Kind: grants.KindDeny, Session: "sessBBBB2222", Op: guard.OpRead, Path: "/x"},
		},
		pending: []wire.Request{{ID: "r1", Session: "sessAAAA1111", Op: guard.OpRead, Path: "/home/u/Downloads/b.csv", Count: 2}},
	}
}

// rowTexts returns the labels of a list's rows as rendered.
func rowTexts(l *widget.List, n int) []string {
	var out []string
	for i := range n {
		var o fyne.CanvasObject
		if l.CreateItem != nil {
			o = l.CreateItem()
			l.UpdateItem(i, o)
		}
		var parts []string
		for _, obj := range test.LaidOutObjects(o) {
			if lb, ok := obj.(*widget.Label); ok {
				parts = append(parts, lb.Text)
			}
		}
		out = append(out, strings.Join(parts, " | "))
	}
	return out
}

func newTestSettings(t *testing.T, b Backend, review func(wire.Request)) *Settings {
	t.Helper()
	a := test.NewTempApp(t)
	s := NewSettings(a, b, review)
	s.background = func(f func()) { f() } // the test driver runs fyne.Do inline
	s.Reload()
	return s
}

func TestSettingsShowsEverything(t *testing.T) {
	b := fixtureBackend()
	s := newTestSettings(t, b, nil)
	grantsRows := rowTexts(s.grantList, s.grantCount())
	if len(grantsRows) != 2 || !strings.Contains(grantsRows[0], "/home/u/Downloads/a.csv") ||
		!strings.Contains(grantsRows[1], "read folder · device") {
		t.Fatalf("grant rows %q", grantsRows)
	}
	audit := rowTexts(s.auditList, s.auditCount())
	if len(audit) != 3 || !strings.Contains(audit[0], "deny") || !strings.Contains(audit[2], "request") {
		t.Fatalf("audit rows not newest first: %q", audit)
	}
	if p := rowTexts(s.pendingList, s.pendingCount()); len(p) != 1 || !strings.Contains(p[0], "asked 2 time(s)") {
		t.Fatalf("pending rows %q", p)
	}
}

func TestSettingsActions(t *testing.T) {
	b := fixtureBackend()
	var reviewed []string
	s := newTestSettings(t, b, func(r wire.Request) { reviewed = append(reviewed, r.ID) })
	row := s.grantList.CreateItem()
	s.updateGrant(0, row)
	tapRowButton(row)
	waitFor(t, func() bool { b.mu.Lock(); defer b.mu.Unlock(); return len(b.revoked) == 1 && b.revoked[0] == "g1" })
	waitFor(t, func() bool { return s.grantCount() == 1 })

	s.sessionPick.SetSelected("sessBBBB2222")
	for _, o := range test.LaidOutObjects(s.Win.Content()) {
		if btn, ok := o.(*widget.Button); ok && btn.Text == "Revoke all of session" {
			test.Tap(btn)
		}
	}
	waitFor(t, func() bool {
		b.mu.Lock()
		defer b.mu.Unlock()
		return len(b.sessions) == 1 && b.sessions[0] == "sessBBBB2222"
	})

	prow := s.pendingList.CreateItem()
	s.updatePending(0, prow)
	tapRowButton(prow)
	if len(reviewed) != 1 || reviewed[0] != "r1" {
		t.Fatalf("review opened %v", reviewed)
	}
}

func TestAuditFilterAndExport(t *testing.T) {
	b := fixtureBackend()
	s := newTestSettings(t, b, nil)
	s.kind.SetSelected(string(grants.KindApprove))
	s.auditSession.SetSelected("sessAAAA1111")
	s.Reload()
	if s.auditCount() != 1 {
		t.Fatalf("filtered audit rows %d, want 1", s.auditCount())
	}
	var buf bytes.Buffer
	if err := s.writeAudit(&buf); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	var rec grants.Record
	if len(lines) != 1 || json.Unmarshal([]byte(lines[0]), &rec) != nil || rec.Kind != grants.KindApprove {
		t.Fatalf("export %q", buf.String())
	}
}

func TestSettingsShowsBackendErrors(t *testing.T) {
	b := fixtureBackend()
	b.fail = errors.New("connection refused")
	s := newTestSettings(t, b, nil)
	waitFor(t, func() bool { return strings.Contains(s.status.Text, "connection refused") })
}

func TestPendingLabel(t *testing.T) {
	for n, want := range map[int]string{0: LabelNoPending, 1: "1 pending request…", 7: "7 pending requests…"} {
		if got := PendingLabel(n); got != want {
			t.Errorf("PendingLabel(%d) = %q, want %q", n, got, want)
		}
	}
}

func tapRowButton(row fyne.CanvasObject) {
	for _, o := range test.LaidOutObjects(row) {
		if b, ok := o.(*widget.Button); ok {
			test.Tap(b)
			return
		}
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(2*refreshEvery + time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition never met")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestSettingsFollowsChanges: a grant revoked elsewhere (the CLI, expiry)
// disappears from an open window without reopening it.
func TestSettingsFollowsChanges(t *testing.T) {
	b := fixtureBackend()
	s := newTestSettings(t, b, nil)
	s.Show()
	defer s.hide()
	if s.grantCount() != 2 {
		t.Fatalf("grants %d", s.grantCount())
	}
	b.mu.Lock()
	b.grants = b.grants[:1]
	b.mu.Unlock()
	waitFor(t, func() bool { return s.grantCount() == 1 })
}

// TestSettingsEndedFilter: a grant that ended with its session is not
// shown as live; the Ended filter shows it with why it ended, and it
// cannot be revoked again.
func TestSettingsEndedFilter(t *testing.T) {
	b := fixtureBackend()
	b.grants = append(b.grants, grants.Grant{ID: "g3", Scope: grants.ScopeSession, Op: guard.OpRead,
		Path: "/home/u/Downloads/gone.csv", Kind: guard.KindFile, Session: "sessCCCC3333", Created: time.Now(),
		Ended: grants.EndSessionEnded, EndReason: grants.EndReasonAgentExited})
	s := newTestSettings(t, b, nil)
	tests := []struct {
		filter string
		want   []string // a path and a state, per row
	}{
		{stateLive, []string{"/home/u/Downloads/a.csv · live", "/home/u/Downloads/data · live"}},
		{stateEnded, []string{"/home/u/Downloads/gone.csv · ended (agent exited)"}},
		{allFilter, []string{"a.csv · live", "data · live", "gone.csv · ended (agent exited)"}},
	}
	for _, tc := range tests {
		t.Run(tc.filter, func(t *testing.T) {
			s.stateIs.SetSelected(tc.filter)
			s.Reload()
			rows := rowTexts(s.grantList, s.grantCount())
			if len(rows) != len(tc.want) {
				t.Fatalf("rows %q, want %d", rows, len(tc.want))
			}
			for i, w := range tc.want {
				path, state, _ := strings.Cut(w, " · ")
				if !strings.Contains(rows[i], path) || !strings.Contains(rows[i], "· "+state+" ·") {
					t.Errorf("row %d = %q, want %s shown as %s", i, rows[i], path, state)
				}
			}
		})
	}
	s.stateIs.SetSelected(stateEnded)
	s.Reload()
	row := s.grantList.CreateItem()
	s.updateGrant(0, row)
	tapRowButton(row)
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.revoked) != 0 {
		t.Errorf("an ended grant was revoked again: %v", b.revoked)
	}
}
