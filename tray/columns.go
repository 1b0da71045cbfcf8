package tray

import (
	"strings"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// ellipsis marks where a cut text was cut.
const ellipsis = "…"

// cutFront returns text whole when it fits, else its end after an
// ellipsis, as much of it as fits: "…/Downloads/report.csv". The cut
// falls after a "/" when one leaves the file name whole, so a path
// never reads as a name it does not have ("…ownloads/report.csv").
func cutFront(text string, fits func(string) bool) string {
	if fits(text) {
		return text
	}
	// the shortest cut that fits: fits is monotonic in what it keeps
	lo, hi := 0, len(text)
	for lo < hi {
		mid := (lo + hi) / 2
		for mid < len(text) && !utf8.RuneStart(text[mid]) {
			mid++
		}
		if mid >= hi {
			break
		}
		if fits(ellipsis + text[mid:]) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	for hi < len(text) && !utf8.RuneStart(text[hi]) {
		hi++
	}
	rest := text[hi:]
	if i := strings.Index(rest, "/"); i > 0 {
		rest = rest[i:]
	}
	return ellipsis + rest
}

// grip is the handle at a column header's right edge: dragging it
// resizes the column, as in any file manager. The header's own button
// sorts.
type grip struct {
	widget.BaseWidget
	col  int
	drag func(col int, dx float32)
}

func newGrip(drag func(col int, dx float32)) *grip {
	g := &grip{drag: drag}
	g.ExtendBaseWidget(g)
	return g
}

// gripWidth is wide enough to catch with a pointer, narrow beside a
// title.
const gripWidth = 6

func (g *grip) CreateRenderer() fyne.WidgetRenderer {
	line := canvas.NewRectangle(theme.Color(theme.ColorNameSeparator))
	return &gripRenderer{line: line}
}

// Dragged implements fyne.Draggable.
func (g *grip) Dragged(e *fyne.DragEvent) { g.drag(g.col, e.Dragged.DX) }

// DragEnd implements fyne.Draggable.
func (g *grip) DragEnd() {}

// Cursor implements desktop.Cursorable: the resize cursor says what a
// drag does.
func (g *grip) Cursor() desktop.Cursor { return desktop.HResizeCursor }

// gripRenderer draws the grip as a thin line in its middle.
type gripRenderer struct {
	line *canvas.Rectangle
}

func (r *gripRenderer) Layout(s fyne.Size) {
	r.line.Resize(fyne.NewSize(1, s.Height*0.6))
	r.line.Move(fyne.NewPos(s.Width/2, s.Height*0.2))
}

func (r *gripRenderer) MinSize() fyne.Size           { return fyne.NewSize(gripWidth, 1) }
func (r *gripRenderer) Refresh()                     { r.line.FillColor = theme.Color(theme.ColorNameSeparator) }
func (r *gripRenderer) Objects() []fyne.CanvasObject { return []fyne.CanvasObject{r.line} }
func (r *gripRenderer) Destroy()                     {}
