package main

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
)

// A request arrives while the person types in another application: the
// inbox window must not take the keyboard from it (typed text would land
// in the window, and an Escape meant for an editor would reach it). So it
// opens without being activated and draws attention as the desktop allows
// (on X11: no activation on show, _NET_WM_USER_TIME 0 before it is first
// mapped, which tells the window manager not to focus it, then
// _NET_WM_STATE_DEMANDS_ATTENTION); only when the person asked for it
// (the tray, a notification's Open) does it take the keyboard.

// revealer implements prompt.Prompter.Reveal. UI goroutine only.
type revealer struct {
	created bool
}

// reveal shows w: activated when the person asked for it, else quietly:
// not activated on show, not focused by the window manager when it maps
// it, and marked as wanting attention. The window is made quiet the
// first time whatever activate says: GLFW keeps how it was made for
// every later show.
func (r *revealer) reveal(w fyne.Window, activate bool) {
	switch {
	case !r.created:
		r.created = true
		showQuietFirst(w)
	case activate:
		w.Show()
	default:
		quietMap(w) // again: an activation dropped it
		w.Show()
	}
	if activate {
		activateWindow(w)
		return
	}
	demandAttention(w)
}

// titleBarRoom is what a window manager's title bar and borders take
// beyond the window's content, with a margin: the content's height plus
// this stays inside the work area.
const titleBarRoom = 70

// fitHeight implements prompt.Prompter.FitHeight: the tallest content
// the work area holds with a title bar; 0 when the work area is unknown.
func fitHeight(w fyne.Window) float32 {
	h := workAreaHeight(w)
	if h <= titleBarRoom {
		return 0
	}
	return h - titleBarRoom
}

// createdHook lies in a window's content while the window is first
// shown: the toolkit asks the content's size once the native window
// exists and before it is mapped, which is the one moment a window
// manager's hint for the first map can be set. It calls created once.
type createdHook struct {
	widget.BaseWidget
	w       fyne.Window
	created func(fyne.Window) bool
	done    bool
}

func newCreatedHook(w fyne.Window, created func(fyne.Window) bool) *createdHook {
	h := &createdHook{w: w, created: created}
	h.ExtendBaseWidget(h)
	return h
}

func (h *createdHook) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(container.NewStack())
}

// MinSize implements fyne.Widget: nothing, and the hook's one call once
// the native window exists.
func (h *createdHook) MinSize() fyne.Size {
	if !h.done {
		h.done = h.created(h.w)
	}
	return fyne.Size{}
}
