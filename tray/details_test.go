package tray

import (
	"slices"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"pathgrant/guard"
	"pathgrant/wire"
)

// TestDetails: selecting a row opens it in full: every field, the path
// and the reason whole and selectable, and the row's buttons, which act
// and close the view.
func TestDetails(t *testing.T) {
	long := "/home/u/Downloads/2026/clients/acme-corporation/quarterly/reports/final/q4-report.csv"
	b := fixtureBackend()
	b.grants[0].Path = long
	b.records = refusals(time.Now())
	b.denials = append(b.denials, wire.Denial{ID: "d2", Session: sessA, Agent: "claude", Op: guard.OpRead,
		Path: "/home/u/Documents/medical.pdf", Created: time.Now(), Device: true})
	s := newTestSettings(t, b, nil)
	tests := []struct {
		name    string
		open    func()
		want    map[string]string // field: value
		buttons []string
		tap     string
		check   func() bool
	}{
		{name: "a grant", open: func() { s.grants.selected(widget.TableCellID{Row: rowOfGrant(s, "g1"), Col: 0}) },
			want:    map[string]string{"Path": "~/Downloads/2026/clients/acme-corporation/quarterly/reports/final/q4-report.csv", "Allows": "read file", "Grant": "g1"},
			buttons: []string{LabelEdit, LabelRevoke}, tap: LabelRevoke,
			check: func() bool { b.mu.Lock(); defer b.mu.Unlock(); return slices.Equal(b.revoked, []string{"g1"}) }},
		{name: "an audit record", open: func() { s.audit.selected(widget.TableCellID{Row: auditRow(t, s, 11), Col: 6}) },
			want: map[string]string{"Reason": "Refused: reading ~/Documents/spec.pdf is outside the workspace",
				"Decided by": "outside the workspace", "Record": "11"},
			buttons: []string{LabelAllow}, tap: LabelAllow,
			check: func() bool { return slices.Equal(b.askedList(), []string{"audit 11"}) }},
		{name: "a device denial", open: func() { s.denials.selected(widget.TableCellID{Row: rowOfDenial(s, "d2"), Col: 0}) },
			want:    map[string]string{"Holds for": "this device", "Path": "~/Documents/medical.pdf"},
			buttons: []string{LabelLift}, tap: LabelLift,
			check: func() bool { b.mu.Lock(); defer b.mu.Unlock(); return slices.Equal(b.lifted, []string{"d2"}) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.open()
			overlay := s.Win.Canvas().Overlays().Top()
			if overlay == nil {
				t.Fatal("no details view")
			}
			fields, buttons := readDetails(overlay)
			for k, v := range tc.want {
				if fields[k] != v {
					t.Errorf("field %q = %q, want %q (all: %q)", k, fields[k], v, fields)
				}
			}
			for _, want := range tc.buttons {
				if !slices.Contains(buttons, want) {
					t.Errorf("buttons %q, want %q among them", buttons, want)
				}
			}
			test.Tap(findButton(t, overlay, tc.tap))
			if !tc.check() {
				t.Errorf("%s did nothing", tc.tap)
			}
			if s.Win.Canvas().Overlays().Top() == overlay {
				t.Error("the details view stayed open after its button")
			}
		})
	}
}

// readDetails returns a details view's fields (every value must be
// selectable text) and its buttons.
func readDetails(root fyne.CanvasObject) (map[string]string, []string) {
	fields := map[string]string{}
	var buttons []string
	var name string
	for _, o := range test.LaidOutObjects(root) {
		switch w := o.(type) {
		case *widget.Label:
			if w.TextStyle.Bold {
				name = w.Text
			} else if name != "" && w.Selectable {
				fields[name], name = w.Text, ""
			}
		case *widget.Button:
			buttons = append(buttons, w.Text)
		}
	}
	return fields, buttons
}

func rowOfGrant(s *Settings, id string) int {
	for i := range s.grants.count() {
		if g, _ := s.grants.row(i); g.ID == id {
			return i
		}
	}
	return -1
}

func rowOfDenial(s *Settings, id string) int {
	for i := range s.denials.count() {
		if d, _ := s.denials.row(i); d.ID == id {
			return i
		}
	}
	return -1
}
