package tray

import (
	"errors"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"pathgrant/grants"
	"pathgrant/guard"
)

// refusals are audit records of what the daemon refused, worded as it
// words them (engine/refusals.go), newest last.
func refusals(now time.Time) []grants.Record {
	return []grants.Record{
		{Seq: 11, Time: now, Kind: grants.KindRefuse, Session: sessA, Op: guard.OpRead, Path: "/home/u/Documents/spec.pdf",
			Reason: "refused (outside_policy): read /home/u/Documents/spec.pdf is outside the workspace"},
		{Seq: 12, Time: now, Kind: grants.KindRefuse, Session: sessA, Op: guard.OpRead, Path: "/home/u/.ssh/id_rsa",
			Reason: "refused (protected): read /home/u/.ssh/id_rsa is a protected path outside the workspace"},
		{Seq: 13, Time: now, Kind: grants.KindRefuse, Session: sessA, Op: guard.OpWrite, Path: "/home/u/Documents/x",
			Reason: "refused (outside_policy): write /home/u/Documents/x is outside the workspace, and write outside it is never offered for approval"},
		{Seq: 14, Time: now, Kind: grants.KindRefuse, Session: sessA, Op: guard.OpRead,
			Reason: "refused (unproven): cannot prove what the command touches: $X"},
		{Seq: 15, Time: now, Kind: grants.KindApprove, Session: sessA, Op: guard.OpRead, Path: "/home/u/Downloads/a.csv"},
		{Seq: 16, Time: now, Kind: grants.KindRefuse, Session: sessA, Op: guard.OpRead, Path: "/home/u/.config/gh/hosts.yml",
			Reason: "refused (outside_policy): read /home/u/.config/gh/hosts.yml is outside the workspace, in a folder of credentials, " +
				"configuration or state that pathgrant never offers for approval: it can never be approved; do not retry"},
	}
}

// TestAuditAllow: Allow… is offered on a read refused as outside the
// workspace, never on a protected path, a write, an unproven command or
// another kind of record; it asks the daemon for a request (nothing is
// granted here) and says where to decide it.
func TestAuditAllow(t *testing.T) {
	b := fixtureBackend()
	b.records = refusals(time.Now())
	s := newTestSettings(t, b, nil)
	tests := []struct {
		seq   uint64
		allow bool
	}{{11, true}, {12, false}, {13, false}, {14, false}, {15, false}, {16, false}}
	for _, tc := range tests {
		t.Run(b.records[tc.seq-11].Reason, func(t *testing.T) {
			row := auditRow(t, s, tc.seq)
			btn := rowButton(s.audit, row, LabelAllow)
			if (btn != nil) != tc.allow {
				t.Fatalf("Allow… offered: %v, want %v", btn != nil, tc.allow)
			}
		})
	}
	test.Tap(rowButton(s.audit, auditRow(t, s, 11), LabelAllow))
	if got := b.askedList(); !slices.Equal(got, []string{"audit 11"}) {
		t.Fatalf("asked %q", got)
	}
	if s.status.Text != AskedNotice {
		t.Fatalf("status %q", s.status.Text)
	}
	b.mu.Lock()
	b.askErr = errors.New("~/.ssh is never eligible")
	b.mu.Unlock()
	test.Tap(rowButton(s.audit, auditRow(t, s, 11), LabelAllow))
	if !strings.Contains(s.status.Text, "never eligible") {
		t.Fatalf("a refused ask not said: %q", s.status.Text)
	}
}

// auditRow is the row the audit table shows record seq at.
func auditRow(t *testing.T, s *Settings, seq uint64) int {
	t.Helper()
	for i := range s.audit.count() {
		if r, _ := s.audit.row(i); r.Seq == seq {
			return i
		}
	}
	t.Fatalf("record %d not shown", seq)
	return -1
}

// TestReasonText: reasons read as words, without the daemon's codes.
func TestReasonText(t *testing.T) {
	tests := []struct{ reason, want string }{
		{"refused (outside_policy): read /tmp/x is outside the workspace", "Refused: reading /tmp/x is outside the workspace"},
		{"refused (outside_policy): read /home/u/Documents/spec.pdf is outside the workspace",
			"Refused: reading ~/Documents/spec.pdf is outside the workspace"},
		{"refused (protected) 10 times in this session: read /home/u/.ssh/id_rsa is a protected path outside the workspace",
			"Refused 10 times in this session: reading ~/.ssh/id_rsa is a protected path outside the workspace"},
		{"refused (unproven): cannot prove what the command touches: $X", "Refused: cannot prove what the command touches: $X"},
		{"refused (unmapped_tool): delete /w/x is …", "Refused: deleting /w/x is …"},
		{"refused (outside_policy): read /home/u/Documents/x is outside the workspace and not in a folder pathgrant offers for approval; " +
			"the person can allow it in pathgrant's settings (Audit → Allow…) or add its folder to eligible_read_only in policy.toml; " +
			"do not retry until they say they have",
			"Refused: reading ~/Documents/x is outside the workspace and not in a folder pathgrant offers for approval"},
		{"refused (outside_policy): read /home/u/.aws/credentials is outside the workspace, in a folder of credentials, configuration " +
			"or state that pathgrant never offers for approval: it can never be approved; do not retry",
			"Refused: reading ~/.aws/credentials is outside the workspace, in a folder of credentials, configuration or state that " +
				"pathgrant never offers for approval: it can never be approved"},
		{"approval without the request's code refused", "Approval without the request's code refused"},
		{"", ""},
	}
	for _, tc := range tests {
		t.Run(tc.reason, func(t *testing.T) {
			got := reasonText(grants.Record{Reason: tc.reason}, "/home/u")
			if got != tc.want {
				t.Errorf("reasonText = %q, want %q", got, tc.want)
			}
			if code := regexp.MustCompile(`\(?[a-z]+_[a-z_]+\)`); code.MatchString(got) {
				t.Errorf("an internal code left in %q", got)
			}
		})
	}
}

// TestNewGrantAndEdit: New grant… and Edit… ask for a read of the path
// the person gives (Edit… starts from the grant's own, and leaves the
// grant as it is); a path that is not a full one is not asked.
func TestNewGrantAndEdit(t *testing.T) {
	tests := []struct {
		name  string
		open  func(s *Settings)
		start string // what the path field holds when it opens
		typed string
		asked []string
	}{
		{"new grant", func(s *Settings) { test.Tap(findButton(t, s.Win.Content(), LabelNewGrant)) }, "",
			"~/Documents/spec.pdf", []string{"path read /home/u/Documents/spec.pdf"}},
		{"edit a grant to its folder", func(s *Settings) { test.Tap(rowButton(s.grants, 0, LabelEdit)) }, "~/Downloads/a.csv",
			"~/Downloads", []string{"path read /home/u/Downloads"}},
		{"a relative path", func(s *Settings) { test.Tap(findButton(t, s.Win.Content(), LabelNewGrant)) }, "",
			"Documents/x", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := fixtureBackend()
			s := newTestSettings(t, b, nil)
			tc.open(s)
			overlay := s.Win.Canvas().Overlays().Top()
			if overlay == nil {
				t.Fatal("no form opened")
			}
			entry := findEntry(t, overlay)
			if entry.Text != tc.start {
				t.Fatalf("the path field opens with %q, want %q", entry.Text, tc.start)
			}
			entry.SetText(tc.typed)
			test.Tap(findButton(t, overlay, LabelAsk))
			if got := b.askedList(); !slices.Equal(got, tc.asked) {
				t.Fatalf("asked %q, want %q", got, tc.asked)
			}
			b.mu.Lock()
			defer b.mu.Unlock()
			if len(b.revoked) != 0 {
				t.Fatalf("an edit revoked %v before its new grant was approved", b.revoked)
			}
		})
	}
}

// TestNoAskingOverTheSocket: `pathgrant settings` beside a headless
// daemon cannot raise requests, so it offers no Allow…, New grant… or
// Edit…; revoking and lifting stay.
func TestNoAskingOverTheSocket(t *testing.T) {
	b := fixtureBackend()
	b.records = refusals(time.Now())
	s := newTestSettings(t, socketBackend{b}, nil)
	if rowButton(s.audit, auditRow(t, s, 11), LabelAllow) != nil {
		t.Error("Allow… offered")
	}
	if rowButton(s.grants, 0, LabelEdit) != nil || rowButton(s.grants, 0, LabelRevoke) == nil {
		t.Error("Edit… offered, or Revoke not")
	}
	for _, o := range test.LaidOutObjects(s.Win.Content()) {
		if btn, ok := o.(*widget.Button); ok && btn.Text == LabelNewGrant {
			t.Error("New grant… offered")
		}
	}
}

// socketBackend is a backend over the shared socket, as Remote is.
type socketBackend struct{ *fakeBackend }

func (socketBackend) refusesAsking() {}

func findButton(t *testing.T, root fyne.CanvasObject, label string) *widget.Button {
	t.Helper()
	for _, o := range test.LaidOutObjects(root) {
		if btn, ok := o.(*widget.Button); ok && btn.Text == label && btn.Visible() {
			return btn
		}
	}
	t.Fatalf("no button %q", label)
	return nil
}

func findEntry(t *testing.T, root fyne.CanvasObject) *widget.Entry {
	t.Helper()
	for _, o := range test.LaidOutObjects(root) {
		if e, ok := o.(*widget.Entry); ok {
			return e
		}
	}
	t.Fatal("no entry")
	return nil
}
