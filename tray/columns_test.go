package tray

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"pathgrant/grants"
	"pathgrant/guard"
)

// TestCutFront: a path too wide for its column loses its start, never
// its file name, and the cut falls at a "/" where one leaves the name
// whole.
func TestCutFront(t *testing.T) {
	tests := []struct {
		name, text string
		room       int // runes that fit
		want       string
	}{
		{"fits", "~/Downloads/a.csv", 40, "~/Downloads/a.csv"},
		{"cut at a folder", "~/Downloads/2026/reports/q4/report.csv", 22, "…/q4/report.csv"},
		{"only the name fits", "~/Downloads/2026/reports/report.csv", 12, "…/report.csv"},
		{"a name wider than the column keeps its end", "~/Downloads/a-very-long-report-name.csv", 12, "…rt-name.csv"},
		{"a name with no folder", "registry.npmjs.org:443", 10, "…s.org:443"},
		{"runes, not bytes", "~/Téléchargements/été/rapport.csv", 17, "…/été/rapport.csv"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fits := func(s string) bool { return utf8.RuneCountInString(s) <= tc.room }
			got := cutFront(tc.text, fits)
			if got != tc.want {
				t.Errorf("cutFront(%q, %d) = %q, want %q", tc.text, tc.room, got, tc.want)
			}
			if !fits(got) {
				t.Errorf("%q does not fit in %d", got, tc.room)
			}
		})
	}
}

// TestColumnsGrowWithWindow: the columns fill the window, each in
// proportion to its usual width, as it widens or narrows, down to a
// floor; a column the person resized keeps its width.
func TestColumnsGrowWithWindow(t *testing.T) {
	s := newTestSettings(t, fixtureBackend(), nil)
	tb := s.grants
	widen := func(w float32) {
		s.Win.Resize(fyne.NewSize(w, 560))
		tb.fit(tb.View.Size().Width)
	}
	var dragged float32
	steps := []struct {
		name  string
		do    func()
		check func() string
	}{
		{"a window narrower than the usual widths: the columns shrink alike and fit it", func() { widen(1120) }, func() string {
			ratio := tb.widths[0] / tb.cols[0].width
			for i, c := range tb.cols {
				if d := tb.widths[i]/c.width - ratio; d > 0.01 || d < -0.01 || ratio >= 1 {
					return "columns did not shrink in proportion"
				}
			}
			return fills(tb, tb.View.Size().Width)
		}},
		{"a very narrow window: no column below its floor, the table scrolls", func() { widen(500) }, func() string {
			for i, c := range tb.cols {
				if tb.widths[i] < max(minColumn, c.width*leastScale)-0.01 {
					return "a column below its floor"
				}
			}
			return ""
		}},
		{"a wide window: every column grows alike and they fill it", func() { widen(2400) }, func() string {
			ratio := tb.widths[0] / tb.cols[0].width
			for i, c := range tb.cols {
				if d := tb.widths[i]/c.width - ratio; d > 0.01 || d < -0.01 || ratio < 1.5 {
					return "columns did not grow in proportion"
				}
			}
			return fills(tb, tb.View.Size().Width)
		}},
		{"a drag at the headers' gap resizes the column", func() { dragged = tb.widths[0] - 100; dragDivider(t, tb, 0, -100) }, func() string {
			if d := tb.widths[0] - dragged; d > 1 || d < -1 || !tb.resized[0] {
				return "the drag did not resize the column"
			}
			dragged = tb.widths[0]
			return ""
		}},
		{"the window narrows: the resized column keeps its width", func() { widen(1800) }, func() string {
			if tb.widths[0] != dragged {
				return "the resized column changed with the window"
			}
			return fills(tb, tb.View.Size().Width)
		}},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			st.do()
			if msg := st.check(); msg != "" {
				t.Fatalf("%s: widths %v (table %v wide)", msg, tb.widths, tb.View.Size().Width)
			}
		})
	}
}

// fills reports whether the columns fill a table width wide without
// spilling out of it.
func fills(tb *table[grants.Grant], width float32) string {
	sum := tb.actionsWidth()
	for _, w := range tb.widths {
		sum += w
	}
	if sum > width || sum < width*0.9 {
		return "the columns do not fill the table"
	}
	return ""
}

// dragDivider drags the gap right of column col's header by dx, as a
// person does with the table's own resizing: the pointer over the gap
// (the resize cursor), pressed, dragged, let go.
func dragDivider[T any](t *testing.T, tb *table[T], col int, dx float32) {
	t.Helper()
	var edge float32
	for i := 0; i <= col; i++ {
		edge += tb.widths[i]
	}
	edge += float32(col) * theme.Padding()
	for x := edge - 2; x < edge+theme.Padding()+2; x++ {
		at := fyne.NewPos(x, 10)
		tb.Widget.MouseMoved(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: at}})
		if tb.Widget.Cursor() != desktop.HResizeCursor {
			continue
		}
		tb.Widget.MouseDown(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: at}, Button: desktop.MouseButtonPrimary})
		tb.Widget.Dragged(&fyne.DragEvent{PointEvent: fyne.PointEvent{Position: at.AddXY(dx, 0)}, Dragged: fyne.Delta{DX: dx}})
		tb.Widget.DragEnd()
		tb.Widget.MouseUp(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: at.AddXY(dx, 0)}, Button: desktop.MouseButtonPrimary})
		return
	}
	t.Fatalf("no resize cursor at the gap right of column %d (near x=%v)", col, edge)
}

// TestPathCutAtStart: a long path in the path column ends with its file
// name, and fits the column.
func TestPathCutAtStart(t *testing.T) {
	b := fixtureBackend()
	long := "/home/u/Downloads/2026/clients/acme-corporation/quarterly/reports/final/q4-report.csv"
	b.grants = []grants.Grant{{ID: "g1", Scope: grants.ScopeSession, Op: guard.OpRead, Path: long, Kind: guard.KindFile,
		Session: sessA, Created: time.Now()}}
	s := newTestSettings(t, b, nil)
	got := cells(s.grants)[0][0]
	room := s.grants.widths[0] - 2*theme.InnerPadding()
	if !strings.HasPrefix(got, "…/") || !strings.HasSuffix(got, "/q4-report.csv") {
		t.Errorf("path cell %q: want it cut at its start, ending with the file name", got)
	}
	if w := fyne.MeasureText(got, theme.TextSize(), fyne.TextStyle{}).Width; w > room {
		t.Errorf("path cell %q is %v wide, the column has %v", got, w, room)
	}
	// a column the person narrowed: the cell as drawn says how wide
	o := s.grants.newCell()
	o.Resize(fyne.NewSize(150, 36))
	s.grants.updateCell(widget.TableCellID{Row: 0, Col: 0}, o)
	l, _, _ := cellParts(o)
	if w := fyne.MeasureText(l.Text, theme.TextSize(), fyne.TextStyle{}).Width; w > 150-2*theme.InnerPadding() ||
		!strings.HasSuffix(l.Text, "q4-report.csv") {
		t.Errorf("path cell drawn 150 wide: %q (%v wide)", l.Text, w)
	}
	if search(s.grants.rows, s.grants.cols, "acme") == nil {
		t.Error("the search no longer finds the part of the path cut from the cell")
	}
}
