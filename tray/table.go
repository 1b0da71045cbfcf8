package tray

import (
	"cmp"
	"slices"
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
)

// column is one column of a table of T.
type column[T any] struct {
	title string
	width float32
	text  func(T) string
	// order compares two rows by this column; nil compares their text.
	// Times and counts need their own, or "10" sorts before "9".
	order func(a, b T) int
}

// rowAction is a row's button: its label, and what a tap does (nil: the
// button is shown disabled, as for a grant that already ended).
type rowAction[T any] func(T) (label string, tapped func())

// table is a widget.Table of rows of T under a header row of buttons: a
// tap on a header sorts by that column, a second tap reverses. With an
// action, the last column holds each row's button.
type table[T any] struct {
	cols   []column[T]
	action rowAction[T]
	mu     sync.Mutex
	rows   []T // the rows shown, sorted
	sortBy int
	desc   bool
	Widget *widget.Table
}

func newTable[T any](cols []column[T], action rowAction[T]) *table[T] {
	t := &table[T]{cols: cols, action: action}
	t.Widget = widget.NewTable(t.size, newCell, t.updateCell)
	t.Widget.ShowHeaderRow = true
	t.Widget.CreateHeader = func() fyne.CanvasObject { return widget.NewButton("", nil) }
	t.Widget.UpdateHeader = t.updateHeader
	for i, c := range cols {
		t.Widget.SetColumnWidth(i, c.width)
	}
	if action != nil {
		t.Widget.SetColumnWidth(len(cols), 90)
	}
	return t
}

func (t *table[T]) width() int {
	if t.action != nil {
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

// newCell is a cell: a label for text, a button for the action column.
func newCell() fyne.CanvasObject {
	l := widget.NewLabel("")
	l.Truncation = fyne.TextTruncateEllipsis
	return container.NewStack(l, widget.NewButton("", nil))
}

func (t *table[T]) updateCell(id widget.TableCellID, o fyne.CanvasObject) {
	objs := o.(*fyne.Container).Objects
	l, b := objs[0].(*widget.Label), objs[1].(*widget.Button)
	r, ok := t.row(id.Row)
	if !ok {
		l.SetText("")
		b.Hide()
		return
	}
	if id.Col < len(t.cols) {
		b.Hide()
		l.Show()
		l.SetText(t.cols[id.Col].text(r))
		return
	}
	label, tapped := t.action(r)
	l.Hide()
	b.SetText(label)
	b.OnTapped = tapped
	if tapped == nil {
		b.Disable()
	} else {
		b.Enable()
	}
	b.Show()
}

func (t *table[T]) updateHeader(id widget.TableCellID, o fyne.CanvasObject) {
	b := o.(*widget.Button)
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
