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

// keyTrap holds the keyboard focus of the window while it shows a
// request, so that Tab (which it takes, as a text area does) cannot walk
// the focus to a button that Space would then press: keys typed for
// another window land here and do nothing but Escape's deny. The Alt
// shortcuts still reach the window, gated by presence.
type keyTrap struct {
	widget.BaseWidget
	key func(*fyne.KeyEvent)
}

func newKeyTrap(key func(*fyne.KeyEvent)) *keyTrap {
	k := &keyTrap{key: key}
	k.ExtendBaseWidget(k)
	return k
}

func (k *keyTrap) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(canvas.NewRectangle(color.Transparent))
}

// FocusGained implements fyne.Focusable.
func (k *keyTrap) FocusGained() {}

// FocusLost implements fyne.Focusable.
func (k *keyTrap) FocusLost() {}

// TypedRune implements fyne.Focusable: typed text goes nowhere.
func (k *keyTrap) TypedRune(rune) {}

// TypedKey implements fyne.Focusable.
func (k *keyTrap) TypedKey(ev *fyne.KeyEvent) { k.key(ev) }

// AcceptsTab implements fyne.Tabbable: Tab stays here.
func (k *keyTrap) AcceptsTab() bool { return true }
