package tray

import (
	"bytes"
	"image/color"
	"image/png"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"

	"pathgrant/assets"
)

// fakeHost records what the tray shows.
type fakeHost struct {
	menu    *fyne.Menu
	icon    fyne.Resource
	tooltip string
}

func (h *fakeHost) SetSystemTrayMenu(m *fyne.Menu)    { h.menu = m }
func (h *fakeHost) SetSystemTrayIcon(r fyne.Resource) { h.icon = r }
func (h *fakeHost) SetTooltip(s string)               { h.tooltip = s }

// fakeTimer is a scheduler the test fires by hand.
type fakeTimer struct {
	fn        func()
	d         time.Duration
	cancelled int
}

func (f *fakeTimer) schedule(d time.Duration, fn func()) func() {
	f.fn, f.d = fn, d
	return func() { f.cancelled++ }
}

func newTestTray(t *testing.T) (*Tray, *fakeHost, *fakeTimer, *[]bool) {
	t.Helper()
	h, timer := &fakeHost{}, &fakeTimer{}
	var paused []bool
	tr := newTray(h, Actions{ShowPending: func() {}, ShowSettings: func() {}, Quit: func() {},
		SetPaused: func(p bool) { paused = append(paused, p) }}, timer.schedule)
	return tr, h, timer, &paused
}

func menuItem(t *testing.T, m *fyne.Menu, prefix string) *fyne.MenuItem {
	t.Helper()
	for _, i := range m.Items {
		if strings.HasPrefix(i.Label, prefix) {
			return i
		}
	}
	t.Fatalf("no menu item %q in %v", prefix, m.Items)
	return nil
}

func TestTrayPendingStates(t *testing.T) {
	tr, h, _, _ := newTestTray(t)
	if h.menu.Label != "pathgrant" {
		t.Errorf("menu title %q", h.menu.Label)
	}
	tests := []struct {
		n        int
		label    string
		disabled bool
		icon     fyne.Resource
		tooltip  string
	}{
		{0, LabelNoPending, true, iconIdle, "pathgrant: no requests waiting"},
		{1, "1 pending request…", false, iconPending, "pathgrant: 1 request waiting"},
		{3, "3 pending requests…", false, iconPending, "pathgrant: 3 requests waiting"},
		{0, LabelNoPending, true, iconIdle, "pathgrant: no requests waiting"},
	}
	for _, tc := range tests {
		t.Run(tc.label, func(t *testing.T) {
			tr.SetPending(tc.n)
			if tr.pendingItem.Label != tc.label || tr.pendingItem.Disabled != tc.disabled {
				t.Errorf("item %q disabled=%v, want %q disabled=%v", tr.pendingItem.Label, tr.pendingItem.Disabled,
					tc.label, tc.disabled)
			}
			if h.icon != tc.icon || h.tooltip != tc.tooltip {
				t.Errorf("icon %s tooltip %q, want %s %q", h.icon.Name(), h.tooltip, tc.icon.Name(), tc.tooltip)
			}
		})
	}
}

// TestTrayPause: "Pause for 1 hour" pauses the daemon and greys the icon;
// the hour's end resumes by itself, and "Resume prompts" before it
// resumes and cancels that timer.
func TestTrayPause(t *testing.T) {
	tr, h, timer, paused := newTestTray(t)
	tr.SetPending(2)
	pause := menuItem(t, h.menu, LabelPause)
	pause.Action()
	if len(*paused) != 1 || !(*paused)[0] || timer.d != PauseFor {
		t.Fatalf("pause: SetPaused %v, timer %v", *paused, timer.d)
	}
	if h.icon != iconPaused || !strings.Contains(h.tooltip, "2 requests waiting; prompts paused until") ||
		!strings.HasPrefix(pause.Label, LabelResume) {
		t.Fatalf("paused: icon %s tooltip %q item %q", h.icon.Name(), h.tooltip, pause.Label)
	}
	timer.fn() // the hour is over
	if len(*paused) != 2 || (*paused)[1] || h.icon != iconPending || pause.Label != LabelPause {
		t.Fatalf("after the hour: SetPaused %v icon %s item %q", *paused, h.icon.Name(), pause.Label)
	}

	pause.Action()
	cancelled := timer.cancelled
	pause.Action() // "Resume prompts"
	if len(*paused) != 4 || (*paused)[3] || timer.cancelled != cancelled+1 || pause.Label != LabelPause {
		t.Fatalf("resume: SetPaused %v cancelled %d item %q", *paused, timer.cancelled, pause.Label)
	}
	timer.fn() // a stale timer changes nothing
	if len(*paused) != 4 {
		t.Fatalf("a cancelled pause resumed again: %v", *paused)
	}
}

func TestTrayConfinementBanner(t *testing.T) {
	tr, h, _, _ := newTestTray(t)
	n := len(h.menu.Items)
	tr.SetConfinement("off")
	if len(h.menu.Items) != n+2 || !strings.HasPrefix(h.menu.Items[0].Label, LabelUnconfined) {
		t.Fatalf("unconfined menu %v", h.menu.Items)
	}
	tr.SetConfinement("landlock")
	if len(h.menu.Items) != n || h.menu.Items[0] != tr.pendingItem {
		t.Fatalf("confined menu %v", h.menu.Items)
	}
}

func TestGreyedIcon(t *testing.T) {
	src, err := png.Decode(bytes.NewReader(assets.Icon))
	if err != nil {
		t.Fatal(err)
	}
	grey, err := png.Decode(bytes.NewReader(iconPaused.Content()))
	if err != nil {
		t.Fatal(err)
	}
	if grey.Bounds() != src.Bounds() {
		t.Fatalf("bounds %v, want %v", grey.Bounds(), src.Bounds())
	}
	opaque := 0
	b := grey.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := color.NRGBAModel.Convert(grey.At(x, y)).(color.NRGBA)
			if c.R != c.G || c.G != c.B {
				t.Fatalf("pixel %d,%d is not grey: %v", x, y, c)
			}
			if c.A > 0 {
				opaque++
			}
		}
	}
	if opaque == 0 {
		t.Fatal("the paused icon is empty")
	}
}
