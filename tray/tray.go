package tray

import (
	"fmt"
	"log/slog"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"github.com/godbus/dbus/v5"

	"pathgrant/assets"
	"pathgrant/wire"
)

// Menu labels.
const (
	LabelNoPending = "No pending requests"
	LabelSettings  = "Grants and audit…"
	LabelPause     = "Pause prompts"
	LabelQuit      = "Quit"
	// LabelUnconfined heads the menu while agent commands run unconfined.
	LabelUnconfined = "UNCONFINED: agent commands are not confined"
)

var (
	iconIdle    = fyne.NewStaticResource("pathgrant.png", assets.Icon)
	iconPending = fyne.NewStaticResource("pathgrant-pending.png", assets.PendingIcon)
)

// Tray is the system-tray icon and menu. Its icon changes while requests
// are pending.
type Tray struct {
	desk        desktop.App
	menu        *fyne.Menu
	pendingItem *fyne.MenuItem
	pauseItem   *fyne.MenuItem
	unconfined  *fyne.MenuItem // shown first while unconfined
	showPending func()
}

// Actions are what the menu items do.
type Actions struct {
	ShowPending  func()
	ShowSettings func()
	SetPaused    func(bool)
	Quit         func()
}

// New installs the tray menu and icon. ok is false when the app cannot have
// a tray at all (not a desktop driver).
func New(a fyne.App, act Actions) (*Tray, bool) {
	desk, ok := a.(desktop.App)
	if !ok {
		return nil, false
	}
	t := &Tray{desk: desk, showPending: act.ShowPending}
	t.pendingItem = fyne.NewMenuItem(LabelNoPending, act.ShowPending)
	t.pauseItem = fyne.NewMenuItem(LabelPause, nil)
	t.pauseItem.Action = func() {
		t.pauseItem.Checked = !t.pauseItem.Checked
		act.SetPaused(t.pauseItem.Checked)
		t.menu.Refresh()
	}
	quit := fyne.NewMenuItem(LabelQuit, act.Quit)
	quit.IsQuit = true
	t.menu = fyne.NewMenu("pathgrant", t.pendingItem, fyne.NewMenuItem(LabelSettings, act.ShowSettings),
		fyne.NewMenuItemSeparator(), t.pauseItem, fyne.NewMenuItemSeparator(), quit)
	desk.SetSystemTrayMenu(t.menu)
	desk.SetSystemTrayIcon(iconIdle)
	return t, true
}

// SetPending shows the number of pending requests in the menu and the
// icon. UI goroutine only.
func (t *Tray) SetPending(n int) {
	t.pendingItem.Label = PendingLabel(n)
	icon := iconIdle
	if n > 0 {
		icon = iconPending
	}
	t.desk.SetSystemTrayIcon(icon)
	t.menu.Refresh()
}

// SetConfinement puts LabelUnconfined (with the level: "off" or "none")
// at the top of the menu while level leaves agent commands unconfined, and
// takes it away when they are confined again. UI goroutine only.
func (t *Tray) SetConfinement(level string) {
	want := wire.Level(level).Unconfined()
	if has := t.unconfined != nil; has == want {
		return
	}
	if want {
		t.unconfined = fyne.NewMenuItem(LabelUnconfined+" ("+level+")", t.showPending)
		t.menu.Items = append([]*fyne.MenuItem{t.unconfined, fyne.NewMenuItemSeparator()}, t.menu.Items...)
	} else {
		t.menu.Items = t.menu.Items[2:]
		t.unconfined = nil
	}
	t.menu.Refresh()
}

// PendingLabel is the first menu item's text.
func PendingLabel(n int) string {
	switch n {
	case 0:
		return LabelNoPending
	case 1:
		return "1 pending request…"
	}
	return fmt.Sprintf("%d pending requests…", n)
}

// HostAvailable reports whether a tray host (a StatusNotifierWatcher on the
// session bus) exists to show the icon. Without one the app still runs.
func HostAvailable(log *slog.Logger) bool {
	conn, err := dbus.SessionBus()
	if err != nil {
		log.Debug("no session bus", "err", err)
		return false
	}
	var has bool
	err = conn.BusObject().Call("org.freedesktop.DBus.NameHasOwner", 0, "org.kde.StatusNotifierWatcher").Store(&has)
	return err == nil && has
}
