//go:build !linux || wayland

package main

import "fyne.io/fyne/v2"

// showQuietFirst shows w: elsewhere than on X11 the toolkit offers no
// way to show a window unactivated, and the desktop's own rules decide.
func showQuietFirst(w fyne.Window) { w.Show() }

// quietMap does nothing where the toolkit offers no way to.
func quietMap(fyne.Window) bool { return false }

// activateWindow asks the toolkit for the focus.
func activateWindow(w fyne.Window) bool {
	w.RequestFocus()
	return true
}

// demandAttention does nothing where the toolkit offers no way to.
func demandAttention(fyne.Window) {}

// workAreaHeight is unknown here: the window keeps prompt.MaxHeight.
func workAreaHeight(fyne.Window) float32 { return 0 }
