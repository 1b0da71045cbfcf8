package prompt

import (
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"pathgrant/wire"
)

// TestAttack43UIHeadlinePushesTheFolderAway: the file's name is the
// agent's to choose (a request's path need not exist). A name padded with
// spaces, or just very long, broken into the headline's lines, was as
// tall as the agent liked: "report.csv" on top, the folder line ("in
// ~/Documents/taxes") pushed below the window's fold, and the scope menu
// offering "Its folder" without saying which. The folder line stays in
// sight in a window of MaxHeight.
func TestAttack43UIHeadlinePushesTheFolderAway(t *testing.T) {
	tests := []struct {
		name string
		base string
	}{
		{"padded with spaces", "report.csv" + strings.Repeat(" ", 2000) + "x"},
		{"padded to a file system's 255 bytes", "report.csv" + strings.Repeat(" ", 244) + "x"},
		{"one long word", strings.Repeat("a", 3000)},
		{"many short words", strings.Repeat("ab ", 1200)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("HOME", "/home/u")
			r := readRequest()
			r.Purpose = "reading the report"
			r.Path = "/home/u/Documents/taxes/" + tt.base
			r.Suggested.Path = r.Path
			d, _, w := newTestDialog(t, r)
			w.Resize(fyne.NewSize(WindowWidth, MaxHeight))
			scroll, ok := d.Content().(*fyne.Container).Objects[0].(*container.Scroll)
			if !ok {
				t.Fatalf("content[0] is %T, not the details' scroll", d.Content().(*fyne.Container).Objects[0])
			}
			where := d.details.Objects[5]
			if bottom := where.Position().Y + where.Size().Height; bottom > scroll.Size().Height {
				t.Errorf("the folder line ends at %.0f px, below the %.0f px in sight: the name hides where the file is", bottom, scroll.Size().Height)
			}
		})
	}
}

// TestAttack43UIDurableDenialUnderTheClose: the agent ends its waiting
// command (the window says so in place, Close at its bottom edge) and
// sends a new request while the person reaches for Close: the new request
// takes the ended one's place, and "Deny on this device", the bottom row,
// lies where Close was. A click (or key) meant for the ended request must
// not store a durable denial of a request the person never saw: the
// durable denials arm with the allow buttons; a plain Deny, which lasts
// for this call only, stays at hand.
func TestAttack43UIDurableDenialUnderTheClose(t *testing.T) {
	tests := []struct {
		name string
		act  func(h *harness)
		want []string
	}{
		{"a click on Deny on this device", func(h *harness) { h.tap(func(d *Dialog) *widget.Button { return d.DenyDevice }) }, nil},
		{"a click on Deny for this session", func(h *harness) { h.tap(func(d *Dialog) *widget.Button { return d.DenySession }) }, nil},
		{"Alt+E", func(h *harness) { h.press(fyne.KeyE) }, nil},
		{"Alt+R", func(h *harness) { h.press(fyne.KeyR) }, nil},
		{"a plain Deny", func(h *harness) { h.tap(func(d *Dialog) *widget.Button { return d.Deny }) }, []string{"b deny"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("HOME", "/home/u")
			h := newTestPrompter(t)
			h.p.ArmDelay = time.Hour
			a := request("a", "s1")
			h.p.Show(a, nil)
			ended := a
			ended.State, ended.Ended = wire.StateEnded, "killed"
			h.p.Update(ended)
			h.eventually(t, "a shown ended", func() bool { return h.p.dlg != nil && h.p.dlg.Ended() })
			h.p.Show(request("b", "s1"), nil)
			h.eventually(t, "b in a's place", func() bool { return h.p.dlg != nil && h.p.dlg.Request.ID == "b" })
			tt.act(h)
			time.Sleep(50 * time.Millisecond) // a decision is applied on its own goroutine
			if got := h.dec.decisions(); !slices.Equal(got, tt.want) {
				t.Fatalf("decisions %q; want %q", got, tt.want)
			}
		})
	}
}

// TestAttack43UITabFromAMenuToAllow: the window's focus stays on a trap
// that takes Tab, so that no key walks to a button for Space to press.
// A click on a duration or scope menu gave that menu the focus: from it
// Tab walked to the next allow button and Space pressed it (an "always"
// device grant, two plain keys away). After a menu is used, the focus is
// the trap's again.
func TestAttack43UITabFromAMenuToAllow(t *testing.T) {
	tests := []struct {
		name string
		menu func(d *Dialog) fyne.CanvasObject
		back bool // Shift+Tab
	}{
		{"the session's duration, Tab", func(d *Dialog) fyne.CanvasObject { return d.sessionForMenu }, false},
		{"the session's duration, Shift+Tab", func(d *Dialog) fyne.CanvasObject { return d.sessionForMenu }, true},
		{"the device's duration, Shift+Tab", func(d *Dialog) fyne.CanvasObject { return d.deviceForMenu }, true},
		{"the scope, Tab", func(d *Dialog) fyne.CanvasObject { return d.targetMenu }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("HOME", "/home/u")
			h := newTestPrompter(t)
			h.p.Show(request("a", "s"), nil)
			h.armed(t)
			h.do(func() {
				c := h.p.window().Canvas()
				test.Tap(tt.menu(h.p.dlg).(fyne.Tappable))
				for _, o := range c.Overlays().List() { // the menu's pop-up, dismissed
					c.Overlays().Remove(o)
				}
				// Tab as the desktop driver handles it: given to a focus
				// that takes it, else walking the focus
				if tab, ok := c.Focused().(fyne.Tabbable); ok && tab.AcceptsTab() {
					c.Focused().TypedKey(&fyne.KeyEvent{Name: fyne.KeyTab})
				} else if tt.back {
					c.FocusPrevious()
				} else {
					c.FocusNext()
				}
				if f := c.Focused(); f != nil {
					f.TypedKey(&fyne.KeyEvent{Name: fyne.KeySpace})
					f.TypedRune(' ')
				}
			})
			time.Sleep(50 * time.Millisecond)
			if got := h.dec.decisions(); len(got) != 0 {
				t.Fatalf("Tab and Space after a menu decided %q", got)
			}
		})
	}
}
