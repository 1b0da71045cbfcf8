package tray

import (
	"cmp"
	"slices"
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// cutMode says which end of a cell's text gives way when it is wider
// than its column.
type cutMode int

const (
	// cutEnd cuts the end, as most text reads from its start.
	cutEnd cutMode = iota
	// cutStart cuts the start of a path, so that its file name shows:
	// "…/Downloads/report.csv", never "~/Downloads/rep…".
	cutStart
)

// column is one column of a table of T.
type column[T any] struct {
	title string
	// width is the column's usual width: columns grow and shrink with the
	// window in proportion to it, until the person resizes one.
	width float32
	text  func(T) string
	// order compares two rows by this column; nil compares their text.
	// Times and counts need their own, or "10" sorts before "9".
	order func(a, b T) int
	cut   cutMode
}

// action is one of a row's buttons: its label, and what a tap does (nil:
// shown disabled, as for a grant that already ended).
type action struct {
	label  string
	tapped func()
}

// rowActions are a row's buttons, at most the table's maxActions; none
// leaves the cell empty (an audit record there is nothing to do about).
type rowActions[T any] func(T) []action

// table is a widget.Table of rows of T under a header row: a tap on a
// header sorts by that column, a second tap reverses, and a drag at the
// gap between two headers resizes the column on its left (the table's
// own resizing). Columns follow the table's width; selecting a row opens
// its details. With actions, the last column holds each row's buttons.
type table[T any] struct {
	cols       []column[T]
	actions    rowActions[T]
	maxActions int
	// open shows a row in full (the details view); nil: rows are not
	// opened.
	open func(T)

	mu     sync.Mutex
	rows   []T // the rows shown, sorted
	sortBy int
	desc   bool

	// Column widths: UI goroutine only. resized marks the columns the
	// person sized, which keep their width when the window changes.
	widths  []float32
	resized []bool
	fitted  float32 // the width the columns were last fitted to
	Widget  *widget.Table
	// View is the table in a container that fits its columns to its
	// width: what the window shows.
	View fyne.CanvasObject
}

// actionWidth is the width of one action button's share of the last
// column.
const actionWidth = 90

// minColumn is the narrowest fit makes a column.
const minColumn = 40

func newTable[T any](cols []column[T], actions rowActions[T], maxActions int) *table[T] {
	t := &table[T]{cols: cols, actions: actions, maxActions: maxActions}
	if actions == nil {
		t.maxActions = 0
	}
	t.Widget = widget.NewTable(t.size, t.newCell, t.updateCell)
	t.Widget.ShowHeaderRow = true
	t.Widget.CreateHeader = t.newHeader
	t.Widget.UpdateHeader = t.updateHeader
	t.Widget.OnSelected = t.selected
	t.widths = make([]float32, len(cols))
	t.resized = make([]bool, len(cols))
	for i, c := range cols {
		t.widths[i] = c.width
		t.Widget.SetColumnWidth(i, c.width)
	}
	if t.maxActions > 0 {
		t.Widget.SetColumnWidth(len(cols), t.actionsWidth())
	}
	t.View = container.New(fitLayout{fit: t.fit}, t.Widget)
	return t
}

func (t *table[T]) actionsWidth() float32 { return float32(t.maxActions) * actionWidth }

func (t *table[T]) width() int {
	if t.maxActions > 0 {
		return len(t.cols) + 1
	}
	return len(t.cols)
}

func (t *table[T]) size() (int, int) { return t.count(), t.width() }

// count is how many rows the table shows.
func (t *table[T]) count() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.rows)
}

// set replaces the rows (from any goroutine) in the current order; the
// caller refreshes the widget on the UI goroutine.
func (t *table[T]) set(rows []T) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.rows = slices.Clone(rows)
	t.sortLocked()
}

// row returns row i; ok is false when a new set shrank the rows since
// the cell was laid out.
func (t *table[T]) row(i int) (T, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	var zero T
	if i < 0 || i >= len(t.rows) {
		return zero, false
	}
	return t.rows[i], true
}

// selected opens the row selected (a click, or Space on the focused
// cell) in the details view, and lets go of the selection so that the
// same row opens again.
func (t *table[T]) selected(id widget.TableCellID) {
	r, ok := t.row(id.Row)
	t.Widget.UnselectAll()
	if ok && t.open != nil && id.Col < len(t.cols) {
		t.open(r)
	}
}

// sortOn sorts by column col, reversing when it already sorts by it.
func (t *table[T]) sortOn(col int) {
	t.mu.Lock()
	if t.sortBy == col {
		t.desc = !t.desc
	} else {
		t.sortBy, t.desc = col, false
	}
	t.sortLocked()
	t.mu.Unlock()
	t.Widget.Refresh()
}

func (t *table[T]) sortLocked() {
	c := t.cols[t.sortBy]
	order := c.order
	if order == nil {
		order = func(a, b T) int { return cmp.Compare(c.text(a), c.text(b)) }
	}
	slices.SortStableFunc(t.rows, func(a, b T) int {
		if t.desc {
			return order(b, a)
		}
		return order(a, b)
	})
}

// newCell is a cell: a label for text, the row's buttons in the action
// column.
func (t *table[T]) newCell() fyne.CanvasObject {
	l := widget.NewLabel("")
	l.Truncation = fyne.TextTruncateEllipsis
	buttons := container.NewHBox()
	for range t.maxActions {
		buttons.Add(widget.NewButton("", nil))
	}
	return container.NewStack(l, buttons)
}

// cellParts are a cell's label and buttons.
func cellParts(o fyne.CanvasObject) (*widget.Label, []fyne.CanvasObject, *fyne.Container) {
	objs := o.(*fyne.Container).Objects
	box := objs[1].(*fyne.Container)
	return objs[0].(*widget.Label), box.Objects, box
}

func (t *table[T]) updateCell(id widget.TableCellID, o fyne.CanvasObject) {
	l, buttons, box := cellParts(o)
	r, ok := t.row(id.Row)
	if !ok {
		l.SetText("")
		box.Hide()
		return
	}
	if id.Col < len(t.cols) {
		box.Hide()
		l.Show()
		l.SetText(t.cellText(id.Col, r, o.Size().Width))
		return
	}
	l.Hide()
	box.Show()
	acts := t.actions(r)
	for i, o := range buttons {
		b := o.(*widget.Button)
		if i >= len(acts) || acts[i].label == "" {
			b.Hide()
			continue
		}
		b.SetText(acts[i].label)
		b.OnTapped = acts[i].tapped
		if acts[i].tapped == nil {
			b.Disable()
		} else {
			b.Enable()
		}
		b.Show()
	}
	box.Refresh() // lay the buttons out again: their number and labels changed
}

// cellText is row r's text in column col, cut at its start to the
// column's width when the column cuts paths so: the width the table drew
// the cell at (it sizes a cell before filling it), else the width fit
// gave the column.
func (t *table[T]) cellText(col int, r T, drawn float32) string {
	text := t.cols[col].text(r)
	if t.cols[col].cut != cutStart {
		return text
	}
	width := drawn
	if width <= 0 {
		width = t.columnWidth(col)
	}
	room := width - 2*theme.InnerPadding()
	return cutFront(text, func(s string) bool {
		return fyne.MeasureText(s, theme.TextSize(), fyne.TextStyle{}).Width <= room
	})
}

// columnWidth is column col's width now.
func (t *table[T]) columnWidth(col int) float32 {
	if col < len(t.widths) {
		return t.widths[col]
	}
	return t.cols[col].width
}

// leastScale is how far the columns shrink below their usual widths in a
// narrow window before the table scrolls instead: cut texts still say
// enough, and the row's buttons stay in sight.
const leastScale = 0.6

// fit sizes the columns to width: each column the person did not resize
// takes its usual width scaled alike, so that the columns fill the
// table, growing with a wide window and shrinking with a narrow one down
// to leastScale (the table then scrolls). UI goroutine only.
func (t *table[T]) fit(width float32) {
	if width == t.fitted {
		return
	}
	t.fitted = width
	pad := theme.Padding()
	room := width - pad*float32(t.width()+1) - theme.ScrollBarSize() - t.actionsWidth()
	var growing float32
	for i, c := range t.cols {
		if t.resized[i] {
			room -= t.widths[i]
		} else {
			growing += c.width
		}
	}
	scale := float32(1)
	if growing > 0 {
		scale = max(leastScale, room/growing)
	}
	for i, c := range t.cols {
		if !t.resized[i] {
			t.setWidth(i, max(minColumn, c.width*scale))
		}
	}
}

// learnWidth notes the width the table drew column col's header at: a
// width other than the one fit set is the person's, dragged at the gap
// between two headers (the table's own resizing), and the column keeps
// it whatever the window does next. A header not yet laid out (no width)
// says nothing. UI goroutine only.
func (t *table[T]) learnWidth(col int, drawn float32) {
	if col < 0 || col >= len(t.cols) || drawn <= 0 {
		return
	}
	if d := drawn - t.widths[col]; d > 0.5 || d < -0.5 {
		t.widths[col], t.resized[col] = drawn, true
	}
}

func (t *table[T]) setWidth(col int, w float32) {
	t.widths[col] = w
	t.Widget.SetColumnWidth(col, w)
}

// newHeader is a header cell: the title's sort button.
func (t *table[T]) newHeader() fyne.CanvasObject { return widget.NewButton("", nil) }

// updateHeader shows column id.Col's title and sort order; the table
// sized the header to the column first, which tells a width the person
// dragged.
func (t *table[T]) updateHeader(id widget.TableCellID, o fyne.CanvasObject) {
	b := o.(*widget.Button)
	t.learnWidth(id.Col, o.Size().Width)
	if id.Col < 0 || id.Col >= len(t.cols) {
		b.SetText("")
		b.OnTapped = nil
		b.Disable()
		return
	}
	t.mu.Lock()
	title := t.cols[id.Col].title
	if t.sortBy == id.Col {
		title += map[bool]string{false: " ▲", true: " ▼"}[t.desc]
	}
	t.mu.Unlock()
	b.SetText(title)
	b.OnTapped = func() { t.sortOn(id.Col) }
	b.Enable()
}

// fitLayout lays out one object over the whole container and hands the
// container's width to fit first: the table's columns follow the window.
type fitLayout struct {
	fit func(width float32)
}

func (l fitLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	l.fit(size.Width)
	for _, o := range objs {
		o.Move(fyne.NewPos(0, 0))
		o.Resize(size)
	}
}

func (l fitLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	var s fyne.Size
	for _, o := range objs {
		s = s.Max(o.MinSize())
	}
	return s
}
