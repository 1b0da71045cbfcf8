package tray

import (
	"bytes"
	"image/png"
	"testing"
	"time"

	"fyne.io/fyne/v2"
)

// countingHost is a fakeHost that counts how often the menu is handed
// over: each time, Fyne's tray rebuilds the whole D-Bus menu.
type countingHost struct {
	fakeHost
	published int
}

func (h *countingHost) SetSystemTrayMenu(m *fyne.Menu) { h.menu = m; h.published++ }

// TestTrayPublishesChangesOnly: the menu is handed to the host again when
// what it shows changed, never for a tooltip or icon alone, so a pause and
// the daemon's echo of it are one rebuild, not two.
func TestTrayPublishesChangesOnly(t *testing.T) {
	h, timer := &countingHost{}, &fakeTimer{}
	tr := newTray(h, Actions{ShowPending: func() {}, ShowSettings: func() {}, Quit: func() {},
		SetPaused: func(bool) {}}, timer.schedule)
	end := time.Date(2026, 1, 2, 10, 30, 0, 0, time.Local)
	tests := []struct {
		name string
		do   func()
		want int // publications so far
	}{
		{"built once", func() {}, 1},
		{"same count", func() { tr.SetPending(0) }, 1},
		{"a request", func() { tr.SetPending(1) }, 2},
		{"still one", func() { tr.SetPending(1) }, 2},
		{"paused", func() { tr.SetPausedUntil(end) }, 3},
		{"the daemon's echo, milliseconds later", func() { tr.SetPausedUntil(end.Add(40 * time.Millisecond)) }, 3},
		{"resumed", func() { tr.SetPausedUntil(time.Time{}) }, 4},
		{"confined still", func() { tr.SetConfinement("landlock") }, 4},
		{"unconfined", func() { tr.SetConfinement("off") }, 5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.do()
			if h.published != tc.want {
				t.Fatalf("menu handed over %d times, want %d", h.published, tc.want)
			}
		})
	}
}

// TestTrayQuitAnnounced: Quit, the item Fyne's tray adds last, has an
// icon, whose setting is what tells the host the menu is complete.
func TestTrayQuitAnnounced(t *testing.T) {
	_, h, _, _ := newTestTray(t)
	last := h.menu.Items[len(h.menu.Items)-1]
	if !last.IsQuit || last.Label != LabelQuit {
		t.Fatalf("last item %q (quit %v), want %q", last.Label, last.IsQuit, LabelQuit)
	}
	if last.Icon == nil {
		t.Fatal("Quit has no icon: a host that read the menu while it was built never hears of Quit")
	}
	img, err := png.Decode(bytes.NewReader(last.Icon.Content()))
	if err != nil {
		t.Fatalf("Quit's icon: %v", err)
	}
	if b := img.Bounds(); b.Dx() != b.Dy() || b.Dx() < 16 {
		t.Fatalf("Quit's icon is %v, want a square of 16 px or more", b)
	}
	if _, _, _, a := img.At(img.Bounds().Dx()/2, img.Bounds().Dy()/2).RGBA(); a != 0 {
		t.Error("the power sign's centre is painted: want the ring and bar only")
	}
}

// TestTrayPublishCoalesces: changes in a burst are handed to the host
// once, PublishAfter after the first, as the menu then is; a change that
// was undone before then is not handed over at all.
func TestTrayPublishCoalesces(t *testing.T) {
	h, timer, later := &countingHost{}, &fakeTimer{}, &fakeTimer{}
	tr := newTray(h, Actions{ShowPending: func() {}, ShowSettings: func() {}, Quit: func() {},
		SetPaused: func(bool) {}}, timer.schedule)
	tr.later = later.schedule
	tests := []struct {
		name      string
		do        func()
		fire      bool
		published int
		first     string // the first item's label once handed over
	}{
		{"five requests arrive", func() {
			for n := 1; n <= 5; n++ {
				tr.SetPending(n)
			}
		}, false, 1, LabelNoPending},
		{"handed over once, as it is now", func() {}, true, 2, "5 pending requests…"},
		{"one decided and one more came", func() { tr.SetPending(4); tr.SetPending(5) }, true, 2, "5 pending requests…"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.do()
			if later.d != PublishAfter {
				t.Errorf("handed over after %v, want %v", later.d, PublishAfter)
			}
			if tc.fire {
				later.fn()
			}
			if h.published != tc.published {
				t.Fatalf("menu handed over %d times, want %d", h.published, tc.published)
			}
			if tc.fire && h.menu.Items[0].Label != tc.first {
				t.Fatalf("the host's first item %q, want %q", h.menu.Items[0].Label, tc.first)
			}
		})
	}
}
