package prompt

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/widget"
)

// A window that opens by itself takes the keyboard on most desktops, and
// whatever the person was typing elsewhere lands in it. So no key approves
// until the person has been at the window: the pointer moved over it
// since it showed the request (a click on a button needs no such proof).
// The arm delay guards the pointer; this guards the keyboard.

// presence lies under the window's content and notes the pointer on it.
type presence struct {
	widget.BaseWidget
	seen func()
}

func newPresence(seen func()) *presence {
	p := &presence{seen: seen}
	p.ExtendBaseWidget(p)
	return p
}

func (p *presence) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(canvas.NewRectangle(color.Transparent))
}

// MouseIn implements desktop.Hoverable.
func (p *presence) MouseIn(*desktop.MouseEvent) { p.seen() }

// MouseMoved implements desktop.Hoverable.
func (p *presence) MouseMoved(*desktop.MouseEvent) { p.seen() }

// MouseOut implements desktop.Hoverable.
func (p *presence) MouseOut() {}
