// Package tray is pathgrant's system-tray menu and its settings window
// (grants, remembered denials, audit log, pending requests).
package tray

import (
	"fmt"
	"log/slog"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/systray"
	"github.com/godbus/dbus/v5"

	"pathgrant/wire"
)

// Title is the tray item's title, which tray hosts show as its name: the
// person's word for the app, not its desktop id.
const Title = "pathgrant"

// Menu labels.
const (
	LabelNoPending = "No pending requests"
	LabelSettings  = "Grants and audit…"
	LabelPause     = "Pause for 1 hour"
	LabelQuit      = "Quit"
	// LabelUnconfined heads the menu while agent commands run unconfined.
	LabelUnconfined = "UNCONFINED: agent commands are not confined"
)

// PublishAfter is how long the menu waits after a change before the host
// is given it: requests arriving in a burst, a pause and the daemon's
// answer, make one rebuild of the host's menu, not one each.
const PublishAfter = 150 * time.Millisecond

// PauseFor is how long "Pause for 1 hour" pauses prompts: a pause always
// ends by itself, so eligible denials are not refused unseen for good.
const PauseFor = time.Hour

// host is the desktop's tray: Fyne's menu and icon, and the tooltip,
// which Fyne's desktop.App (v2.7) has no call for.
type host interface {
	SetSystemTrayMenu(*fyne.Menu)
	SetSystemTrayIcon(fyne.Resource)
	SetTooltip(string)
}

// desktopHost is the real tray. The tooltip goes to the StatusNotifierItem
// that Fyne's driver registers through fyne.io/systray, the one instance
// in the process; a tooltip set before it is registered is kept for it.
type desktopHost struct{ desktop.App }

func (desktopHost) SetTooltip(s string) { systray.SetTooltip(s) }

// Tray is the system-tray icon and menu. Its icon shows whether requests
// are pending and whether prompts are paused; its tooltip says how many
// requests wait.
type Tray struct {
	host      host
	menu      *fyne.Menu
	published string // the menu as the host last got it (menuText)
	// later runs the menu's hand-over PublishAfter after the first change
	// not yet handed over (nil: at once), so that a burst of changes is
	// one rebuild; handing is true while one is scheduled.
	later       scheduler
	handing     bool
	pendingItem *fyne.MenuItem
	unconfined  *fyne.MenuItem // shown first while unconfined
	showPending func()
	pending     int
	pause       *pauser
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
	var h host = desktopHost{desk}
	if native, ok := newSystrayHost(); ok {
		h = native
		// Fyne quits when its last window is destroyed, and its own tray
		// keeps a window that is never shown for that; so does this one.
		_ = a.NewWindow(Title)
	}
	t := newTray(h, act, afterOnUI)
	t.later = afterOnUI
	return t, true
}

// newTray builds the menu on h; schedule runs the end of a pause.
func newTray(h host, act Actions, schedule scheduler) *Tray {
	t := &Tray{host: h, showPending: act.ShowPending}
	t.pendingItem = fyne.NewMenuItem(LabelNoPending, act.ShowPending)
	t.pendingItem.Disabled = true
	t.pause = newPauser(act.SetPaused, schedule, t.redraw)
	quit := fyne.NewMenuItem(LabelQuit, act.Quit)
	quit.IsQuit = true
	// The last item carries an icon so that the host hears of it (see
	// iconQuit).
	quit.Icon = iconQuit
	t.menu = fyne.NewMenu(Title, t.pendingItem, fyne.NewMenuItem(LabelSettings, act.ShowSettings),
		fyne.NewMenuItemSeparator(), t.pause.item, fyne.NewMenuItemSeparator(), quit)
	h.SetSystemTrayMenu(t.menu)
	t.published = menuText(t.menu)
	t.redraw()
	return t
}

// SetPending shows the number of pending requests in the menu, the icon
// and the tooltip. UI goroutine only.
func (t *Tray) SetPending(n int) {
	t.pending = n
	t.redraw()
}

// redraw sets the menu, icon and tooltip from the tray's state.
func (t *Tray) redraw() {
	t.pendingItem.Label = PendingLabel(t.pending)
	t.pendingItem.Disabled = t.pending == 0 // a placeholder, not an action
	t.host.SetSystemTrayIcon(iconFor(t.pending, t.pause.paused()))
	t.host.SetTooltip(Tooltip(t.pending, t.pause.until()))
	t.publish()
}

// publish hands the menu to the host again when what it shows changed,
// and only then. Fyne's tray rebuilds the whole D-Bus menu at every
// Refresh: every item is removed, the menu is announced empty, then built
// again under new ids, each step announced to the host (the panel) as a
// new layout revision. A host that reads the menu between two of those
// steps keeps whatever it read last, so every rebuild is a chance to lose
// items; a pause and the daemon's answer to it were two rebuilds within
// milliseconds. One rebuild per visible change, none for a tooltip.
func (t *Tray) publish() {
	if t.later == nil {
		t.handOver()
		return
	}
	if !t.handing {
		t.handing = true
		t.later(PublishAfter, t.handOver)
	}
}

// handOver gives the host the menu as it is now, if that differs from
// what the host has.
func (t *Tray) handOver() {
	t.handing = false
	text := menuText(t.menu)
	if text == t.published {
		return
	}
	t.published = text
	t.host.SetSystemTrayMenu(t.menu) // Fyne's driver rebuilds its tray menu from m
}

// menuText is what a menu shows, one line per item: its label, and
// whether it is disabled, a separator or has an icon.
func menuText(m *fyne.Menu) string {
	var b strings.Builder
	for _, i := range m.Items {
		fmt.Fprintf(&b, "%q sep=%v off=%v icon=%v\n", i.Label, i.IsSeparator, i.Disabled, i.Icon != nil)
	}
	return b.String()
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
	t.publish()
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

// Tooltip is what hovering the tray icon says: how many requests wait,
// and until when prompts are paused (zero: not paused).
func Tooltip(pending int, pausedUntil time.Time) string {
	s := Title + ": no requests waiting"
	switch {
	case pending == 1:
		s = Title + ": 1 request waiting"
	case pending > 1:
		s = fmt.Sprintf("%s: %d requests waiting", Title, pending)
	}
	if !pausedUntil.IsZero() {
		s += "; prompts paused until " + pausedUntil.Local().Format("15:04")
	}
	return s
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

// SetPausedUntil shows the daemon's pause: until when prompts are paused
// (zero: not paused). UI goroutine only.
func (t *Tray) SetPausedUntil(until time.Time) { t.pause.show(until) }
