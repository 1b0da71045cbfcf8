//go:build linux

package tray

import (
	"fyne.io/fyne/v2"
	"fyne.io/systray"
)

// systrayHost publishes the tray through fyne.io/systray itself, not
// through Fyne's tray. Fyne rebuilds the whole D-Bus menu
// (com.canonical.dbusmenu) at every change: each item removed, the menu
// announced empty, then built again under new ids, with only some steps
// announced to the host. xfce4-panel, whose libdbusmenu reads the layout
// at each announcement, was seen keeping a menu cut short after Pause →
// Resume while the menu pathgrant published was whole (issue 43). Here
// the items are built once and changed in place: a label or a disabled
// state changes on the item the host already has, under the same id, and
// each change is announced with the menu whole. Only a change of shape
// (the banner of unconfined commands coming or going) builds it again.
type systrayHost struct {
	shape   string              // the built menu's shape (menuShape)
	items   []*systray.MenuItem // one per menu item, nil for a separator
	labels  []string
	off     []bool
	actions []func() // what each item does: UI goroutine only
	// built counts the builds, so that the clicks of an item of an older
	// build (one fyne.io/systray never closed) do nothing.
	built int
}

// newSystrayHost registers the StatusNotifierItem (fyne.io/systray's one
// instance in the process) and returns it as the tray's host.
func newSystrayHost() (host, bool) {
	start, _ := systray.RunWithExternalLoop(nil, nil)
	start()
	systray.SetTitle(Title) // some hosts fail on an item without a title
	return &systrayHost{}, true
}

// SetSystemTrayMenu implements host: the first call builds the menu,
// later ones change its items in place. UI goroutine only.
func (h *systrayHost) SetSystemTrayMenu(m *fyne.Menu) {
	if menuShape(m) != h.shape {
		h.build(m)
		return
	}
	for i, it := range m.Items {
		si := h.items[i]
		if si == nil {
			continue
		}
		h.actions[i] = it.Action
		if it.Label != h.labels[i] {
			h.labels[i] = it.Label
			si.SetTitle(it.Label)
		}
		if it.Disabled != h.off[i] {
			h.off[i] = it.Disabled
			if it.Disabled {
				si.Disable()
			} else {
				si.Enable()
			}
		}
	}
}

// build makes the menu anew from m.
func (h *systrayHost) build(m *fyne.Menu) {
	systray.ResetMenu()
	h.built++
	h.shape = menuShape(m)
	n := len(m.Items)
	h.items, h.labels, h.off, h.actions = make([]*systray.MenuItem, n), make([]string, n), make([]bool, n), make([]func(), n)
	for i, it := range m.Items {
		if it.IsSeparator {
			systray.AddSeparator()
			continue
		}
		si := systray.AddMenuItem(it.Label, "")
		if it.Disabled {
			si.Disable()
		}
		if it.Icon != nil {
			si.SetIcon(it.Icon.Content()) // announces the menu with this item in it (iconQuit)
		}
		h.items[i], h.labels[i], h.off[i], h.actions[i] = si, it.Label, it.Disabled, it.Action
		go h.clicks(si, i, h.built)
	}
}

// clicks runs item i's action on the UI goroutine at each click, until
// the item is removed (its channel closed).
func (h *systrayHost) clicks(si *systray.MenuItem, i, built int) {
	for range si.ClickedCh {
		fyne.Do(func() {
			if h.built == built && h.actions[i] != nil {
				h.actions[i]()
			}
		})
	}
}

// SetSystemTrayIcon implements host; the icons are PNG, which the
// StatusNotifierItem carries as they are.
func (h *systrayHost) SetSystemTrayIcon(r fyne.Resource) { systray.SetIcon(r.Content()) }

// SetTooltip implements host.
func (h *systrayHost) SetTooltip(s string) { systray.SetTooltip(s) }

// menuShape is where a menu's separators are and how many items it has:
// what in-place changes cannot change.
func menuShape(m *fyne.Menu) string {
	b := make([]byte, len(m.Items))
	for i, it := range m.Items {
		b[i] = 'i'
		if it.IsSeparator {
			b[i] = '-'
		}
	}
	return string(b)
}
