package tray

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

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
	denials  []wire.Denial
	revoked  []string
	lifted   []string
	sessions []string
	filter   grants.AuditFilter
	fail     error
	asked    []string // "audit SEQ", "path OP PATH"
	askErr   error
}

func (f *fakeBackend) AskFromAudit(id string) (wire.Request, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.asked = append(f.asked, "audit "+id)
	return wire.Request{ID: "asked"}, f.askErr
}

func (f *fakeBackend) AskForPath(op wire.Op, path string) (wire.Request, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.asked = append(f.asked, "path "+string(op)+" "+path)
	return wire.Request{ID: "asked"}, f.askErr
}

func (f *fakeBackend) askedList() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.asked)
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
	f.grants = slices.DeleteFunc(f.grants, func(g grants.Grant) bool { return g.ID == id })
	return nil
}
func (f *fakeBackend) RevokeSession(s string) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sessions = append(f.sessions, s)
	n := len(f.grants)
	f.grants = slices.DeleteFunc(f.grants, func(g grants.Grant) bool { return g.Session == s })
	return n - len(f.grants), nil
}
func (f *fakeBackend) Decide(string, wire.Decision) error { return nil }
func (f *fakeBackend) Denials() ([]wire.Denial, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.denials), f.fail
}
func (f *fakeBackend) LiftDenial(id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lifted = append(f.lifted, id)
	f.denials = slices.DeleteFunc(f.denials, func(d wire.Denial) bool { return d.ID == id })
	return nil
}

const (
	sessA = "5f0c1e2a-aaaa-4bbb-8ccc-111111111111"
	sessB = "9d3b7c4e-bbbb-4ccc-8ddd-222222222222"
)

var started = time.Date(2026, 12, 4, 14, 2, 0, 0, time.Local)

func fixtureBackend() *fakeBackend {
	now := time.Now()
	return &fakeBackend{
		grants: []grants.Grant{
			{ID: "g1", Scope: grants.ScopeSession, Op: guard.OpRead, Path: "/home/u/Downloads/a.csv", Kind: guard.KindFile,
				Session: sessA, Agent: "claude", Created: now, UseCount: 9},
			{ID: "g2", Scope: grants.ScopeDevice, Op: guard.OpRead, Path: "/home/u/Downloads/data", Kind: guard.KindFolder,
				Session: sessB, Agent: "codex", Created: now, UseCount: 10},
		},
		records: []grants.Record{
			{Seq: 1, Time: now, Kind: grants.KindRequest, Session: sessA, Op: guard.OpRead, Path: "/home/u/Downloads/a.csv"},
			{Seq: 2, Time: now, Kind: grants.KindApprove, Session: sessA, Op: guard.OpRead, Path: "/home/u/Downloads/a.csv"},
			{Seq: 3, Time: now, Kind: grants.KindCode, Session: sessB, Op: guard.OpRead, Path: "/x", Reason: "approval code missing"},
			{Seq: 4, Time: now, Kind: grants.KindRefuse, Session: sessB, Op: guard.OpRead, Path: "/home/u/.ssh/id_ed25519",
				Reason: "protected path"},
		},
		pending: []wire.Request{{ID: "r1", Session: sessA, Agent: "claude", RequestContext: wire.RequestContext{Cwd: "/home/u/work/app"}, SessionStarted: started,
			Op: guard.OpRead, Path: "/home/u/Downloads/b.csv", Count: 2, Waiting: 1}},
		denials: []wire.Denial{{ID: "d1", Session: sessB, Agent: "codex", Cwd: "/home/u/src/tool", Op: guard.OpRead,
			Path: "/home/u/Documents/taxes.pdf", Hits: 3, Created: now}},
	}
}

func newTestSettings(t *testing.T, b Backend, review func(wire.Request)) *Settings {
	t.Helper()
	t.Setenv("HOME", "/home/u")
	a := test.NewTempApp(t)
	s := NewSettings(a, b, review)
	s.background = func(f func()) { f() } // the test driver runs fyne.Do inline
	s.Reload()
	return s
}

// cells returns a table's rows as rendered, one string per cell; an
// action cell reads as its shown buttons' labels, joined by " | ".
func cells[T any](tb *table[T]) [][]string {
	rows, cols := tb.size()
	out := make([][]string, rows)
	for r := range rows {
		for c := range cols {
			o := tb.newCell()
			tb.updateCell(widget.TableCellID{Row: r, Col: c}, o)
			l, buttons, _ := cellParts(o)
			if l.Visible() {
				out[r] = append(out[r], l.Text)
				continue
			}
			var labels []string
			for _, b := range buttons {
				if b.Visible() {
					labels = append(labels, b.(*widget.Button).Text)
				}
			}
			out[r] = append(out[r], strings.Join(labels, " | "))
		}
	}
	return out
}

// rowButton renders the button labelled label of a table's row; nil when
// the row shows none.
func rowButton[T any](tb *table[T], row int, label string) *widget.Button {
	o := tb.newCell()
	tb.updateCell(widget.TableCellID{Row: row, Col: len(tb.cols)}, o)
	_, buttons, _ := cellParts(o)
	for _, b := range buttons {
		if btn := b.(*widget.Button); btn.Visible() && btn.Text == label {
			return btn
		}
	}
	return nil
}

// tapCell taps the last button of a table's row (Revoke, Lift, Allow…).
func tapCell[T any](tb *table[T], row int) *widget.Button {
	o := tb.newCell()
	tb.updateCell(widget.TableCellID{Row: row, Col: len(tb.cols)}, o)
	_, buttons, _ := cellParts(o)
	var b *widget.Button
	for _, o := range buttons {
		if o.Visible() {
			b = o.(*widget.Button)
		}
	}
	if b != nil && !b.Disabled() {
		test.Tap(b)
	}
	return b
}

// header renders column col's header button.
func header[T any](tb *table[T], col int) *widget.Button {
	o := tb.Widget.CreateHeader()
	tb.Widget.UpdateHeader(widget.TableCellID{Row: -1, Col: col}, o)
	return o.(*widget.Button)
}

func columnOf(rows [][]string, col int) []string {
	var out []string
	for _, r := range rows {
		out = append(out, r[col])
	}
	return out
}

func TestSettingsShowsEverything(t *testing.T) {
	s := newTestSettings(t, fixtureBackend(), nil)
	var titles []string
	for i := range s.grants.cols {
		titles = append(titles, strings.TrimSuffix(header(s.grants, i).Text, " ▲"))
	}
	want := []string{"Path", "Op", "Scope", "State", "Expires", "Uses", "Last used", "Session"}
	if !slices.Equal(titles, want) {
		t.Errorf("grant headers %q, want %q", titles, want)
	}
	g := cells(s.grants)
	wantGrants := [][]string{
		{"~/Downloads/a.csv", "read file", "session", "live", "session end", "9", "–",
			"claude · ~/work/app · " + clock(started, time.Now()), "Edit… | Revoke"},
		{"~/Downloads/data", "read folder", "device", "live", "never", "10", "–",
			"codex · ~/src/tool · since " + clock(time.Now(), time.Now()), "Edit… | Revoke"},
	}
	if !slices.EqualFunc(g, wantGrants, slices.Equal) {
		t.Errorf("grant rows\n%q\nwant\n%q", g, wantGrants)
	}
	d := cells(s.denials)
	if len(d) != 1 || d[0][0] != "codex · ~/src/tool · since "+clock(time.Now(), time.Now()) || d[0][1] != "this session" ||
		d[0][3] != "~/Documents/taxes.pdf" || d[0][4] != "3" || d[0][7] != "Lift" {
		t.Errorf("denial rows %q", d)
	}
	a := cells(s.audit)
	if got := columnOf(a, 1); !slices.Equal(got, []string{"refused", "wrong code", "approved", "asked"}) {
		t.Errorf("audit kinds, newest first: %q", got)
	}
	if s.pendingCount() != 1 {
		t.Fatalf("pending %d", s.pendingCount())
	}
	row := newRow()
	s.updatePending(0, row)
	var texts []string
	for _, o := range test.LaidOutObjects(row) {
		if l, ok := o.(*widget.Label); ok {
			texts = append(texts, l.Text)
		}
	}
	if len(texts) != 2 || texts[0] != "~/Downloads/b.csv" || !strings.Contains(texts[1], "claude · ~/work/app") ||
		!strings.Contains(texts[1], "1 waiting") || strings.Contains(texts[1], sessA[:8]) {
		t.Errorf("pending row %q", texts)
	}
}

// TestGrantTableSorts: a tap on a header sorts by that column, by value
// (10 uses after 9, not before), and a second tap reverses.
func TestGrantTableSorts(t *testing.T) {
	s := newTestSettings(t, fixtureBackend(), nil)
	const uses = 5
	tests := []struct {
		name  string
		col   int
		want  []string
		arrow string
	}{
		{"uses ascending", uses, []string{"9", "10"}, "Uses ▲"},
		{"uses descending", uses, []string{"10", "9"}, "Uses ▼"},
		{"path", 0, []string{"9", "10"}, "Path ▲"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			test.Tap(header(s.grants, tc.col))
			if got := columnOf(cells(s.grants), uses); !slices.Equal(got, tc.want) {
				t.Errorf("uses column %q, want %q", got, tc.want)
			}
			if h := header(s.grants, tc.col).Text; h != tc.arrow {
				t.Errorf("header %q, want %q", h, tc.arrow)
			}
		})
	}
}

func TestSettingsSearch(t *testing.T) {
	s := newTestSettings(t, fixtureBackend(), nil)
	tests := []struct {
		query string
		want  []string
	}{
		{"DATA", []string{"~/Downloads/data"}},
		{"claude", []string{"~/Downloads/a.csv"}}, // the session's label
		{"downloads", []string{"~/Downloads/a.csv", "~/Downloads/data"}},
		{"nothing-like-it", nil},
		{"", []string{"~/Downloads/a.csv", "~/Downloads/data"}},
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			s.bars.grantSearch.SetText(tc.query)
			if got := columnOf(cells(s.grants), 0); !slices.Equal(got, tc.want) {
				t.Errorf("rows %q, want %q", got, tc.want)
			}
		})
	}
	s.bars.auditSearch.SetText("protected")
	if a := cells(s.audit); len(a) != 1 || a[0][1] != "refused" {
		t.Errorf("audit search: %q", a)
	}
}

func TestSettingsActions(t *testing.T) {
	b := fixtureBackend()
	var reviewed []string
	s := newTestSettings(t, b, func(r wire.Request) { reviewed = append(reviewed, r.ID) })
	tapCell(s.grants, 0)
	b.mu.Lock()
	revoked := slices.Clone(b.revoked)
	b.mu.Unlock()
	if !slices.Equal(revoked, []string{"g1"}) || s.grants.count() != 1 {
		t.Fatalf("revoked %v, %d rows left", revoked, s.grants.count())
	}

	// The picker offers sessions by label, never by id.
	label := "codex · ~/src/tool · since " + clock(time.Now(), time.Now())
	if opts := s.bars.sessionPick.Options; !slices.Equal(opts, []string{label}) {
		t.Fatalf("session picker %q, want %q", opts, label)
	}
	s.bars.sessionPick.SetSelected(label)
	for _, o := range test.LaidOutObjects(s.Win.Content()) {
		if btn, ok := o.(*widget.Button); ok && btn.Text == "Revoke all of session" {
			test.Tap(btn)
		}
	}
	b.mu.Lock()
	sessions := slices.Clone(b.sessions)
	b.mu.Unlock()
	if !slices.Equal(sessions, []string{sessB}) {
		t.Fatalf("revoked sessions %v", sessions)
	}

	tapCell(s.denials, 0)
	b.mu.Lock()
	lifted := slices.Clone(b.lifted)
	b.mu.Unlock()
	if !slices.Equal(lifted, []string{"d1"}) || s.denials.count() != 0 {
		t.Fatalf("lifted %v, %d denials left", lifted, s.denials.count())
	}

	prow := s.pendingList.CreateItem()
	s.updatePending(0, prow)
	for _, o := range test.LaidOutObjects(prow) {
		if btn, ok := o.(*widget.Button); ok {
			test.Tap(btn)
		}
	}
	if !slices.Equal(reviewed, []string{"r1"}) {
		t.Fatalf("review opened %v", reviewed)
	}
}

// TestAuditKindFilter: the kinds are offered by label, a mistyped code
// is "wrong code" (never "forged"), and picking one filters by its kind.
func TestAuditKindFilter(t *testing.T) {
	b := fixtureBackend()
	s := newTestSettings(t, b, nil)
	opts := s.bars.kind.Options
	if len(opts) != len(grants.Kinds())+1 || opts[0] != allFilter {
		t.Fatalf("kind options %q", opts)
	}
	for _, o := range opts {
		if o == string(grants.KindCode) || o == string(grants.KindRefuse) {
			t.Errorf("kind %q offered by name, not label", o)
		}
	}
	tests := []struct {
		label string
		kind  grants.Kind
		rows  int
	}{
		{"wrong code", grants.KindCode, 1},
		{"refused", grants.KindRefuse, 1},
		{"approved", grants.KindApprove, 1},
		{allFilter, "", 4},
	}
	for _, tc := range tests {
		t.Run(tc.label, func(t *testing.T) {
			s.bars.kind.SetSelected(tc.label)
			b.mu.Lock()
			got := b.filter.Kind
			b.mu.Unlock()
			if got != tc.kind || s.audit.count() != tc.rows {
				t.Errorf("filter kind %q rows %d, want %q %d", got, s.audit.count(), tc.kind, tc.rows)
			}
		})
	}
}

func TestAuditSessionFilterAndExport(t *testing.T) {
	b := fixtureBackend()
	s := newTestSettings(t, b, nil)
	s.bars.kind.SetSelected(grants.KindApprove.Label())
	label := "claude · ~/work/app · " + clock(started, time.Now())
	if !slices.Contains(s.bars.auditSession.Options, label) {
		t.Fatalf("audit sessions %q, want %q among them", s.bars.auditSession.Options, label)
	}
	s.bars.auditSession.SetSelected(label)
	if s.audit.count() != 1 {
		t.Fatalf("filtered audit rows %d, want 1", s.audit.count())
	}
	var buf bytes.Buffer
	if err := s.writeAudit(&buf); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	var rec grants.Record
	if len(lines) != 1 || json.Unmarshal([]byte(lines[0]), &rec) != nil || rec.Kind != grants.KindApprove ||
		rec.Session != sessA {
		t.Fatalf("export %q", buf.String())
	}
}

func TestSettingsShowsBackendErrors(t *testing.T) {
	b := fixtureBackend()
	b.fail = errors.New("connection refused")
	s := newTestSettings(t, b, nil)
	if !strings.Contains(s.status.Text, "connection refused") {
		t.Fatalf("status %q", s.status.Text)
	}
}

func TestSettingsNotice(t *testing.T) {
	s := newTestSettings(t, fixtureBackend(), nil)
	if s.notice.Visible() {
		t.Fatal("a notice shown unasked")
	}
	s.SetNotice("No system tray: reopen with 'pathgrant settings'.")
	if !s.notice.Visible() || !strings.Contains(s.notice.Text, "pathgrant settings") {
		t.Fatalf("notice %q visible=%v", s.notice.Text, s.notice.Visible())
	}
}

func TestPendingLabel(t *testing.T) {
	for n, want := range map[int]string{0: LabelNoPending, 1: "1 pending request…", 7: "7 pending requests…"} {
		if got := PendingLabel(n); got != want {
			t.Errorf("PendingLabel(%d) = %q, want %q", n, got, want)
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
	if s.grants.count() != 2 {
		t.Fatalf("grants %d", s.grants.count())
	}
	b.mu.Lock()
	b.grants = b.grants[:1]
	b.mu.Unlock()
	waitFor(t, func() bool { return s.grants.count() == 1 })
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
	const state = 3
	tests := []struct {
		filter string
		want   []string // path: state, per row
	}{
		{stateLive, []string{"~/Downloads/a.csv: live", "~/Downloads/data: live"}},
		{stateEnded, []string{"~/Downloads/gone.csv: ended (agent exited)"}},
		{allFilter, []string{"~/Downloads/a.csv: live", "~/Downloads/data: live", "~/Downloads/gone.csv: ended (agent exited)"}},
	}
	for _, tc := range tests {
		t.Run(tc.filter, func(t *testing.T) {
			s.bars.stateIs.SetSelected(tc.filter)
			var got []string
			for _, r := range cells(s.grants) {
				got = append(got, r[0]+": "+r[state])
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("rows %q, want %q", got, tc.want)
			}
		})
	}
	s.bars.stateIs.SetSelected(stateEnded)
	if btn := tapCell(s.grants, 0); btn.Text != "Ended" || !btn.Disabled() {
		t.Errorf("an ended grant's button %q disabled=%v", btn.Text, btn.Disabled())
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.revoked) != 0 {
		t.Errorf("an ended grant was revoked again: %v", b.revoked)
	}
}

// listingBackend also lists the daemon's sessions, as Local and Remote do.
type listingBackend struct {
	*fakeBackend
	live []wire.SessionInfo
}

func (l listingBackend) Sessions() ([]wire.SessionInfo, error) { return l.live, nil }

// TestSettingsLabelsLiveSessions: a backend that lists its live sessions
// gives their start to the labels, where otherwise only the first sight
// of the session is known.
func TestSettingsLabelsLiveSessions(t *testing.T) {
	b := listingBackend{fixtureBackend(), []wire.SessionInfo{{ID: sessB, Agent: "codex", Started: started}}}
	s := newTestSettings(t, b, nil)
	want := "codex · ~/src/tool · " + clock(started, time.Now())
	if got := columnOf(cells(s.denials), 0); !slices.Equal(got, []string{want}) {
		t.Errorf("denial session %q, want %q", got, want)
	}
}

// TestAuditTime: an audit row's time fits its column: the year only when
// it is not this one.
func TestAuditTime(t *testing.T) {
	now := time.Date(2026, 12, 6, 18, 0, 0, 0, time.Local)
	tests := []struct {
		name string
		at   time.Time
		want string
	}{
		{"this year", time.Date(2026, 3, 1, 9, 5, 7, 0, time.Local), "Mar 1 09:05:07"},
		{"last year", time.Date(2025, 12, 31, 23, 59, 0, 0, time.Local), "2025-12-31 23:59"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := auditTime(tc.at, now); got != tc.want {
				t.Errorf("auditTime = %q, want %q", got, tc.want)
			}
		})
	}
}
