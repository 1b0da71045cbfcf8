package prompt

import (
	"image/color"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/widget"
)

// The keyboard. An earlier rule let no key approve before the person's
// pointer had been over the window: a window that opened by itself took
// the keyboard, and what the person was typing for another window landed
// in it. That rule made the keyboard useless on its own, and it is not
// needed any more:
// the window never takes the keyboard by itself (the app shows it without
// activating it and only draws attention, cmd/pathgrant-ui), so a key
// reaches it only after the person put the focus there. What stays:
//
//   - the shortcuts are Alt and a letter, shown on each button: typed
//     text (a letter, Space, Return) approves nothing;
//   - an allow shortcut acts only while the buttons are armed (ArmDelay
//     after the request shown changed) and once the window has had the
//     keyboard for KeyDelay (FocusGained): keys typed for the window the
//     person just left do not approve;
//   - Escape hides the window and decides nothing.

// FocusGained notes that the window has the keyboard: the allow
// shortcuts act from KeyDelay on. Safe from any goroutine.
func (d *Dialog) FocusGained() {
	d.keysFrom.Store(time.Now().Add(d.KeyDelay).UnixNano())
}

// FocusLost notes that the window lost the keyboard: no allow shortcut
// acts until it has it again. Safe from any goroutine.
func (d *Dialog) FocusLost() { d.keysFrom.Store(0) }

// KeysLive reports whether an allow shortcut may act now: the window has
// had the keyboard for KeyDelay. Safe from any goroutine.
func (d *Dialog) KeysLive() bool {
	from := d.keysFrom.Load()
	return from != 0 && time.Now().UnixNano() >= from
}

// keyTrap holds the keyboard focus of the window while it shows a
// request, so that Tab (which it takes, as a text area does) cannot walk
// the focus to a button that Space would then press: typed text lands
// here and does nothing. It passes the window's focus changes on (the
// toolkit tells the focused object when its window gains or loses the
// keyboard) and its keys (Escape).
type keyTrap struct {
	widget.BaseWidget
	key          func(*fyne.KeyEvent)
	gained, lost func()
}

func newKeyTrap(d *Dialog) *keyTrap {
	k := &keyTrap{key: d.TypedKey, gained: d.FocusGained, lost: d.FocusLost}
	k.ExtendBaseWidget(k)
	return k
}

func (k *keyTrap) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(canvas.NewRectangle(color.Transparent))
}

// FocusGained implements fyne.Focusable.
func (k *keyTrap) FocusGained() { k.gained() }

// FocusLost implements fyne.Focusable.
func (k *keyTrap) FocusLost() { k.lost() }

// TypedRune implements fyne.Focusable: typed text goes nowhere.
func (k *keyTrap) TypedRune(rune) {}

// TypedKey implements fyne.Focusable.
func (k *keyTrap) TypedKey(ev *fyne.KeyEvent) { k.key(ev) }

// AcceptsTab implements fyne.Tabbable: Tab stays here.
func (k *keyTrap) AcceptsTab() bool { return true }

// menu is a scope or duration menu that gives the window's focus back
// to its key trap as soon as it gets it (a tap gives it): from a focused
// menu, Tab or Shift+Tab walked to an allow button for Space to press.
// Its pop-up works as before; the allow shortcuts wait KeyDelay again, as
// after any change of what an allow button grants.
type menu struct {
	widget.Select
	dlg *Dialog
}

func (d *Dialog) newMenu(options []string) *menu {
	m := &menu{dlg: d}
	m.Options = options
	m.ExtendBaseWidget(m)
	return m
}

// FocusGained implements fyne.Focusable: the focus goes on to the trap.
func (m *menu) FocusGained() {
	m.Select.FocusGained()
	if m.dlg.Refocus != nil {
		m.dlg.Refocus()
	}
}
