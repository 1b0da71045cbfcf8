package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// xfconfd is where Debian installs the xfconf daemon, which xfwm4 and
// xfce4-panel read their settings from. It is started by hand, not by
// D-Bus activation, so that it reads the test's own configuration folder.
const xfconfd = "/usr/lib/x86_64-linux-gnu/xfce4/xfconf/xfconfd"

// panelSize is the height of the test panel, at the top of the screen.
const panelSize = 30

// panelXML is xfce4-panel's configuration: one panel along the top edge
// (p=6) holding the systray plugin alone, which in 4.18 hosts
// StatusNotifierItems (org.kde.StatusNotifierWatcher) as well as XEmbed
// icons. Without a configuration the panel asks, in a dialog, which one to
// start with.
var panelXML = fmt.Sprintf(`<?xml version="1.0" encoding="UTF-8"?>
<channel name="xfce4-panel" version="1.0">
  <property name="configver" type="int" value="2"/>
  <property name="panels" type="array">
    <value type="int" value="1"/>
    <property name="panel-1" type="empty">
      <property name="position" type="string" value="p=6;x=0;y=0"/>
      <property name="length" type="uint" value="100"/>
      <property name="position-locked" type="bool" value="true"/>
      <property name="size" type="uint" value="%d"/>
      <property name="plugin-ids" type="array">
        <value type="int" value="1"/>
      </property>
    </property>
  </property>
  <property name="plugins" type="empty">
    <property name="plugin-1" type="string" value="systray"/>
  </property>
</channel>
`, panelSize)

// lxqtPanelConf is lxqt-panel's configuration: one panel along the top
// holding the statusnotifier plugin, whose menus are libdbusmenu-qt's
// (the importer KDE's tray was built on).
var lxqtPanelConf = fmt.Sprintf(`[General]
__userfile__=true
panels=panel1

[panel1]
plugins=statusnotifier
position=Top
panelSize=%d
iconSize=22
alignment=-1
width=100
width-percent=true

[statusnotifier]
type=statusnotifier
`, panelSize)

// trayHost is a panel that hosts StatusNotifierItems: how it is
// configured and started, and how a person opens an item's menu in it.
type trayHost struct {
	Name   string
	config map[string]string // file under XDG_CONFIG_HOME -> content
	// button opens the menu of the panel's first item, whose icon is iconX
	// px from the panel's left end.
	button string
	iconX  int
}

var (
	// xfcePanel is xfce4-panel 4.18's systray plugin (GTK menus through
	// libdbusmenu-gtk3), which opens an item's menu on a left click.
	xfcePanel = trayHost{Name: "xfce4-panel", button: "1", iconX: 11,
		config: map[string]string{"xfce4/xfconf/xfce-perchannel-xml/xfce4-panel.xml": panelXML}}
	// lxqtPanel is lxqt-panel's statusnotifier plugin (Qt menus through
	// libdbusmenu-qt), which opens it on a right click.
	lxqtPanel = trayHost{Name: "lxqt-panel", button: "3", iconX: 15,
		config: map[string]string{"lxqt/panel.conf": lxqtPanelConf}}
)

// wmDesktop is a desktop as a person has one: a window manager (xfwm4), a
// panel with a StatusNotifierItem host (xfce4-panel unless told), dunst,
// and a screen of a chosen size.
type wmDesktop struct {
	*desktop
	Width, Height int
	Host          trayHost
}

// startWMDesktop starts Xvfb with a width x height screen, and in one
// dbus-run-session: xfconfd reading a configuration of the test's own,
// xfwm4 (no compositor), dunst and xfce4-panel. It returns when the window
// manager runs, the panel reserved its strip of the screen and hosts
// StatusNotifierItems. Everything is one process group, stopped at cleanup.
func startWMDesktop(t *testing.T, width, height int) *wmDesktop {
	t.Helper()
	return startWMDesktopWith(t, width, height, xfcePanel)
}

// startWMDesktopWith is startWMDesktop with host as the panel.
func startWMDesktopWith(t *testing.T, width, height int, host trayHost) *wmDesktop {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end: runs in the full test step, not with -short")
	}
	needTools(t, "Xvfb", "dbus-run-session", "dunst", "dunstctl", "xdotool", "import", "xprop",
		"xfwm4", host.Name, "gdbus")
	if _, err := os.Stat(xfconfd); err != nil {
		t.Skipf("xfconfd is not installed (scripts/deps installs xfconf): %v", err)
	}
	d := &desktop{dir: t.TempDir()}
	config := filepath.Join(d.dir, "config")
	for name, content := range host.config {
		path := filepath.Join(config, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	d.Display = startXvfbScreen(t, fmt.Sprintf("%dx%dx24", width, height))
	busFile := filepath.Join(d.dir, "bus")
	logs := func(name string) string { return filepath.Join(d.dir, name+".log") }
	script := fmt.Sprintf(`echo "$DBUS_SESSION_BUS_ADDRESS" > %q
%s >%q 2>&1 &
xfwm4 --compositor=off >%q 2>&1 &
dunst >%q 2>&1 &
%s >%q 2>&1 &
exec sleep 600`, busFile, xfconfd, logs("xfconfd"), logs("xfwm4"), logs("dunst"), host.Name, logs("panel"))
	cmd := d.command("dbus-run-session", "--", "sh", "-c", script)
	// The desktop's own folders, not the tester's; no accessibility bus
	// (GTK would start one, outside the process group).
	cmd.Env = append(os.Environ(), "DISPLAY="+d.Display, "HOME="+d.dir, "XDG_CONFIG_HOME="+config,
		"XDG_CACHE_HOME="+filepath.Join(d.dir, "cache"), "XDG_DATA_HOME="+filepath.Join(d.dir, "data"),
		"NO_AT_BRIDGE=1", "GTK_A11Y=none", "QT_QPA_PLATFORM=xcb", "XDG_RUNTIME_DIR="+d.dir)
	startGroup(t, cmd)
	d.Bus = waitFile(t, busFile)
	w := &wmDesktop{desktop: d, Width: width, Height: height, Host: host}
	w.waitReady(t, logs)
	return w
}

// waitReady waits for the window manager, the panel's strut and the
// StatusNotifierItem host; on a timeout the desktop's logs are in the
// failure.
func (w *wmDesktop) waitReady(t *testing.T, logs func(string) string) {
	t.Helper()
	ready := map[string]func() bool{
		"xfwm4 managing the screen": func() bool {
			out, err := w.command("xprop", "-root", "_NET_SUPPORTING_WM_CHECK").Output()
			return err == nil && strings.Contains(string(out), "window id")
		},
		"the panel's strip kept out of the work area": func() bool {
			_, y, _, _, err := w.workArea()
			return err == nil && y >= panelSize
		},
		"a StatusNotifierItem host": func() bool {
			out, err := w.command("gdbus", "call", "--session", "--dest", "org.kde.StatusNotifierWatcher",
				"--object-path", "/StatusNotifierWatcher", "--method", "org.freedesktop.DBus.Properties.Get",
				"org.kde.StatusNotifierWatcher", "IsStatusNotifierHostRegistered").Output()
			return err == nil && strings.Contains(string(out), "true")
		},
		"dunst": func() bool { return w.command("dunstctl", "is-paused").Run() == nil },
	}
	for what, cond := range ready {
		deadline := time.Now().Add(20 * time.Second)
		for !cond() {
			if time.Now().After(deadline) {
				for _, name := range []string{"xfconfd", "xfwm4", "panel", "dunst"} {
					b, _ := os.ReadFile(logs(name))
					t.Logf("%s.log:\n%s", name, b)
				}
				t.Fatalf("timed out waiting for %s", what)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
}

// workArea is the screen less the panel: _NET_WORKAREA of desktop 0.
func (w *wmDesktop) workArea() (x, y, width, height int, err error) {
	out, err := w.command("xprop", "-root", "_NET_WORKAREA").Output()
	if err != nil {
		return 0, 0, 0, 0, fmt.Errorf("xprop _NET_WORKAREA: %w", err)
	}
	_, list, ok := strings.Cut(string(out), "=")
	if !ok {
		return 0, 0, 0, 0, fmt.Errorf("no work area: %q", out)
	}
	var n []int
	for _, f := range strings.Split(list, ",")[:4] {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return 0, 0, 0, 0, fmt.Errorf("work area %q: %w", list, err)
		}
		n = append(n, v)
	}
	return n[0], n[1], n[2], n[3], nil
}

// geometry is a window's frame-less position and size on the screen.
type geometry struct{ X, Y, W, H int }

// windowGeometry asks xdotool where window win is.
func (w *wmDesktop) windowGeometry(t *testing.T, win string) geometry {
	t.Helper()
	var g geometry
	for _, line := range strings.Split(w.output(t, "xdotool", "getwindowgeometry", "--shell", win), "\n") {
		fmt.Sscanf(line, "X=%d", &g.X)
		fmt.Sscanf(line, "Y=%d", &g.Y)
		fmt.Sscanf(line, "WIDTH=%d", &g.W)
		fmt.Sscanf(line, "HEIGHT=%d", &g.H)
	}
	return g
}

// pointer is where the pointer is ("x y"), to show that nothing moved it.
func (w *wmDesktop) pointer(t *testing.T) string {
	t.Helper()
	var x, y int
	for _, f := range strings.Fields(w.output(t, "xdotool", "getmouselocation")) {
		fmt.Sscanf(f, "x:%d", &x)
		fmt.Sscanf(f, "y:%d", &y)
	}
	return fmt.Sprintf("%d %d", x, y)
}

// activeWindow is the window the window manager has given the keyboard.
func (w *wmDesktop) activeWindow(t *testing.T) string {
	t.Helper()
	out, err := w.command("xdotool", "getactivewindow").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}
