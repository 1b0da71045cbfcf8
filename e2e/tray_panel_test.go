package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"pathgrant/tray"
)

// dbusMenu reads the app's tray menu over com.canonical.dbusmenu as a
// StatusNotifierItem host does: the item the watcher lists, its Menu
// object, GetLayout of the whole tree, then the properties of every item
// by GetGroupProperties (libdbusmenu, behind xfce4-panel and GNOME's
// AppIndicator extension, shows an item only once that call returned it;
// KDE's importer reads the layout's properties).
type dbusMenu struct {
	conn         *dbus.Conn
	service      string
	path         dbus.ObjectPath
	revisionSeen uint32
}

// menuEntry is one item of a layout: its id and label, "-" for a
// separator.
type menuEntry struct {
	ID    int32
	Label string
}

// layout is GetLayout's tree: an id, properties, children.
type layout struct {
	ID       int32
	Props    map[string]dbus.Variant
	Children []dbus.Variant
}

// openDBusMenu connects to the desktop's session bus and finds the one
// registered StatusNotifierItem and its menu.
func openDBusMenu(t *testing.T, d *desktop) *dbusMenu {
	t.Helper()
	conn, err := dbus.Connect(d.Bus)
	if err != nil {
		t.Fatalf("session bus: %v", err)
	}
	t.Cleanup(func() { conn.Close() })
	var items []string
	waitUntil(t, 30*time.Second, "the app's StatusNotifierItem registered with the panel", func() bool {
		v, err := conn.Object("org.kde.StatusNotifierWatcher", "/StatusNotifierWatcher").
			GetProperty("org.kde.StatusNotifierWatcher.RegisteredStatusNotifierItems")
		if err != nil {
			return false
		}
		items, _ = v.Value().([]string)
		return len(items) == 1
	})
	// xfce4-panel lists an item as "service/path".
	service, path, _ := strings.Cut(items[0], "/")
	m := &dbusMenu{conn: conn, service: service}
	v, err := conn.Object(service, dbus.ObjectPath("/"+path)).GetProperty("org.kde.StatusNotifierItem.Menu")
	if err != nil {
		t.Fatalf("the item's Menu: %v", err)
	}
	m.path, _ = v.Value().(dbus.ObjectPath)
	return m
}

// entries is the menu as a host shows it: GetLayout, then every item's
// properties by GetGroupProperties; an item whose properties do not come
// back is not shown, as libdbusmenu does not show it.
func (m *dbusMenu) entries(t *testing.T) []menuEntry {
	t.Helper()
	obj := m.conn.Object(m.service, m.path)
	var rev uint32
	var root layout
	if err := obj.Call("com.canonical.dbusmenu.GetLayout", 0, int32(0), int32(-1), []string{}).Store(&rev, &root); err != nil {
		t.Fatalf("GetLayout: %v", err)
	}
	m.revisionSeen = rev
	var ids []int32
	for _, c := range root.Children {
		var child layout
		if err := dbus.Store([]any{c.Value()}, &child); err != nil {
			t.Fatalf("a child of the layout: %v (%#v)", err, c.Value())
		}
		ids = append(ids, child.ID)
	}
	var props []struct {
		ID    int32
		Props map[string]dbus.Variant
	}
	if err := obj.Call("com.canonical.dbusmenu.GetGroupProperties", 0, ids, []string{}).Store(&props); err != nil {
		t.Fatalf("GetGroupProperties: %v", err)
	}
	byID := map[int32]map[string]dbus.Variant{}
	for _, p := range props {
		byID[p.ID] = p.Props
	}
	var out []menuEntry
	for _, id := range ids {
		p, ok := byID[id]
		if !ok {
			continue
		}
		if visible, ok := p["visible"]; ok && visible.Value() == false {
			continue
		}
		label, _ := p["label"].Value().(string)
		if typ, _ := p["type"].Value().(string); typ == "separator" {
			label = "-"
		}
		out = append(out, menuEntry{ID: id, Label: label})
	}
	return out
}

// labels are the entries' labels.
func labels(es []menuEntry) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.Label)
	}
	return out
}

// waitMenu waits until the menu read over D-Bus has the labels want
// (a label ending in "…)" matches by its prefix up to "(").
func (m *dbusMenu) waitMenu(t *testing.T, what string, want []string) []menuEntry {
	t.Helper()
	var got []menuEntry
	deadline := time.Now().Add(20 * time.Second)
	for {
		got = m.entries(t)
		if menuMatches(labels(got), want) {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: the menu reads %q, want %q", what, labels(got), want)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func menuMatches(got, want []string) bool {
	return slices.EqualFunc(got, want, func(g, w string) bool {
		if p, ok := strings.CutSuffix(w, "*"); ok {
			return strings.HasPrefix(g, p)
		}
		return g == w
	})
}

// panelMenu opens the tray icon's menu in the panel with a click (the
// icon is the panel's first item, at its left end) and returns the new
// menu window and its geometry: a window new since the click whose type
// is a menu (the icon's tooltip shows there too, and a notification may
// show meanwhile), below the panel.
func (w *wmDesktop) panelMenu(t *testing.T) (string, geometry) {
	t.Helper()
	before := w.visibleWindows(t)
	w.output(t, "xdotool", "mousemove", fmt.Sprint(w.Host.iconX), fmt.Sprint(panelSize/2), "click", w.Host.button)
	var win string
	var g geometry
	waitUntil(t, 10*time.Second, "the panel's menu window", func() bool {
		for _, id := range w.visibleWindows(t) {
			if slices.Contains(before, id) {
				continue
			}
			g = w.windowGeometry(t, id)
			if g.Y >= panelSize-2 && g.H > 40 && w.isMenu(id) {
				win = id
				return true
			}
		}
		return false
	})
	time.Sleep(300 * time.Millisecond) // drawn
	return win, g
}

// isMenu says whether window win's type is a menu's (GTK and Qt set
// _NET_WM_WINDOW_TYPE_POPUP_MENU or _DROPDOWN_MENU on theirs).
func (w *wmDesktop) isMenu(win string) bool {
	out, err := w.command("xprop", "-id", win, "_NET_WM_WINDOW_TYPE").Output()
	return err == nil && strings.Contains(string(out), "_MENU")
}

// visibleWindows lists every visible window on the screen.
func (w *wmDesktop) visibleWindows(t *testing.T) []string {
	t.Helper()
	out, _ := w.command("xdotool", "search", "--onlyvisible", "--name", "").Output()
	return strings.Fields(string(out))
}

// menuShot saves the top left of the screen, the panel's icon and its
// open menu at g, as docs/images/name with PATHGRANT_DOC_IMAGES.
func (w *wmDesktop) menuShot(t *testing.T, g geometry, name string) {
	t.Helper()
	path := filepath.Join(artifactDir(t), name)
	w.output(t, "import", "-window", "root", "-crop", fmt.Sprintf("%dx%d+0+0", g.X+g.W+12, g.Y+g.H+12), "+repage", path)
	docImage(t, path)
}

// closeMenu closes an open panel menu without choosing.
func (w *wmDesktop) closeMenu(t *testing.T, win string) {
	t.Helper()
	// The menu's window may be mapped before it holds the keyboard (a
	// loaded machine): an Escape sent before then closes nothing, so it is
	// sent again each second until the menu is gone, and every other time
	// a click on the empty screen below the menu closes it as a person
	// would.
	gone := func() bool { return !slices.Contains(w.visibleWindows(t), win) }
	for i := range 10 {
		if i%2 == 0 {
			w.output(t, "xdotool", "key", "Escape")
		} else {
			w.output(t, "xdotool", "mousemove", fmt.Sprint(w.Width/2), fmt.Sprint(w.Height-10), "click", "1")
		}
		if waitFor(time.Second, gone) {
			return
		}
	}
	w.screenshot(t, w.Host.Name+"-menu-stuck.png")
	props, _ := w.command("xprop", "-id", win, "WM_CLASS", "WM_NAME", "_NET_WM_WINDOW_TYPE").CombinedOutput()
	t.Fatalf("timed out waiting for the panel's menu to close: window %s at %+v\n%s", win, w.windowGeometry(t, win), props)
}

// waitFor polls cond until it holds or limit passes, and says which.
func waitFor(limit time.Duration, cond func() bool) bool {
	for deadline := time.Now().Add(limit); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if cond() {
			return true
		}
	}
	return cond()
}

// chooseInPanelMenu opens the menu and picks its n-th enabled item from
// the keyboard (GTK's and Qt's menus skip the disabled first item).
func (w *wmDesktop) chooseInPanelMenu(t *testing.T, n int) {
	t.Helper()
	win, _ := w.panelMenu(t)
	for range n {
		w.output(t, "xdotool", "key", "Down")
	}
	w.output(t, "xdotool", "key", "Return")
	waitUntil(t, 10*time.Second, "the panel's menu to close", func() bool {
		return !slices.Contains(w.visibleWindows(t), win)
	})
}

// TestTrayMenuAfterPauseResume is issue 43's tray menu on real panels:
// xfce4-panel 4.18 kept only part of the menu after Pause → Resume. The
// real app runs on xfwm4 with a panel as its StatusNotifierItem host,
// xfce4-panel (libdbusmenu-gtk3) and lxqt-panel (libdbusmenu-qt, the
// importer KDE's tray was built on); Pause and Resume are picked in the
// panel's own menu, and after them the menu is whole both as the panel
// shows it (its window is as tall as before, screenshots) and as a host
// reads it over D-Bus (GetLayout, then every item's properties).
func TestTrayMenuAfterPauseResume(t *testing.T) {
	for _, host := range []trayHost{xfcePanel, lxqtPanel} {
		t.Run(host.Name, func(t *testing.T) { trayMenuAfterPauseResume(t, host) })
	}
}

func trayMenuAfterPauseResume(t *testing.T, host trayHost) {
	w := startWMDesktopWith(t, 1366, 768, host)
	e := newAppEnv(t)
	startTheApp(t, w.desktop, e, "tray-panel-app-"+host.Name+".log")
	// the session bus's traffic, for a failure's post-mortem
	mon := w.command("dbus-monitor")
	monOut, err := os.Create(filepath.Join(artifactDir(t), host.Name+"-dbus.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer monOut.Close()
	mon.Stdout = monOut
	startGroup(t, mon)
	menu := openDBusMenu(t, w.desktop)
	idle := []string{tray.LabelNoPending, tray.LabelSettings, "-", tray.LabelPause, "-", tray.LabelQuit}
	paused := []string{tray.LabelNoPending, tray.LabelSettings, "-", tray.LabelResume + "*", "-", tray.LabelQuit}
	first := menu.waitMenu(t, "at start", idle)

	win, before := w.panelMenu(t)
	w.screenshot(t, host.Name+"-menu-before.png")
	w.closeMenu(t, win)

	w.chooseInPanelMenu(t, 2) // Pause for 1 hour
	menu.waitMenu(t, "paused", paused)
	time.Sleep(time.Second) // the panel heard of the change
	win, pausedGeo := w.panelMenu(t)
	w.screenshot(t, host.Name+"-menu-paused.png")
	w.closeMenu(t, win)
	if pausedGeo.H != before.H {
		t.Errorf("paused: the panel's menu is %d px tall, %d before: items missing", pausedGeo.H, before.H)
	}

	w.chooseInPanelMenu(t, 2) // Resume prompts
	after := menu.waitMenu(t, "resumed", idle)
	// the items the panel has are changed in place, never built again
	// under new ids (the rebuilds' steps are what the panel kept)
	if !slices.EqualFunc(first, after, func(a, b menuEntry) bool { return a.ID == b.ID }) {
		t.Errorf("the menu's items changed ids: %v at start, %v after Pause → Resume", first, after)
	}
	time.Sleep(time.Second)
	win, afterGeo := w.panelMenu(t)
	w.screenshot(t, host.Name+"-menu-after-resume.png")
	w.menuShot(t, afterGeo, host.Name+"-menu-after-pause-resume.png")
	w.closeMenu(t, win)
	if afterGeo.H != before.H {
		t.Errorf("after Pause → Resume the panel's menu is %d px tall, %d before: items missing", afterGeo.H, before.H)
	}
}
