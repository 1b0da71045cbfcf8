//go:build linux

package tray

import (
	"slices"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"
)

// TestSystrayHostInPlace: the tray's own systray host builds the items
// once and changes them in place (the same items, so the same D-Bus ids,
// for the host), builds again only when the menu's shape changes, and a
// click on an item runs that item's current action. It drives the
// process's fyne.io/systray instance without a session bus: nothing is
// sent, the layout is kept all the same.
func TestSystrayHostInPlace(t *testing.T) {
	test.NewTempApp(t)
	clicked := make(chan string, 4)
	click := func(what string) func() { return func() { clicked <- what } }
	h := &systrayHost{}
	tr := newTray(h, Actions{ShowPending: click("pending"), ShowSettings: click("settings"), Quit: click("quit"),
		SetPaused: func(bool) {}}, (&fakeTimer{}).schedule)
	first := slices.Clone(h.items)
	tests := []struct {
		name  string
		do    func()
		built int
		same  bool // the same items as the first build
	}{
		{"built once", func() {}, 1, true},
		{"a request: a label and an enabled state", func() { tr.SetPending(1) }, 1, true},
		{"paused: a label", func() { tr.SetPausedUntil(time.Date(2026, 1, 2, 10, 30, 0, 0, time.Local)) }, 1, true},
		{"resumed", func() { tr.SetPausedUntil(time.Time{}) }, 1, true},
		{"the unconfined banner: a new shape", func() { tr.SetConfinement("off") }, 2, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.do()
			if h.built != tc.built {
				t.Fatalf("built %d times, want %d", h.built, tc.built)
			}
			for i, it := range tr.menu.Items {
				if !it.IsSeparator && (h.labels[i] != it.Label || h.off[i] != it.Disabled) {
					t.Errorf("item %d is %q (off %v), the menu says %q (off %v)", i, h.labels[i], h.off[i], it.Label, it.Disabled)
				}
			}
			if same := slices.Equal(first, h.items); same != tc.same {
				t.Errorf("the same items as the first build: %v, want %v", same, tc.same)
			}
		})
	}
	// a click on the first item (the banner now) runs the current action
	h.items[0].ClickedCh <- struct{}{}
	select {
	case got := <-clicked:
		if got != "pending" {
			t.Fatalf("the banner's click ran %q", got)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the click ran nothing")
	}
}
