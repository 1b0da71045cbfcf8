package e2e

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"

	"pathgrant/apiclient"
	"pathgrant/guard"
	"pathgrant/prompt"
	"pathgrant/tray"
	"pathgrant/wire"
)

// ux is the real app on a desktop with a window manager and a panel, one
// agent session, and the person's own client (the test process).
type ux struct {
	t      *testing.T
	w      *wmDesktop
	e      appEnv
	agent  *apiclient.Client
	person *apiclient.Client
}

// startUX starts the app on a 1366x768 desktop (the smallest screen the
// window must fit) with xfwm4, xfce4-panel and dunst.
func startUX(t *testing.T) *ux {
	w := startWMDesktop(t, 1366, 768)
	e := newAppEnv(t)
	startTheApp(t, w.desktop, e, "approval-ux-app.log")
	openDBusMenu(t, w.desktop) // the tray is up: the panel hosts it
	return &ux{t: t, w: w, e: e, agent: agentSession(t, e), person: apiclient.New(e.socket)}
}

// file makes a Downloads file and returns the check that reads it.
func (u *ux) file(rel string) wire.CheckRequest {
	u.t.Helper()
	path := filepath.Join(u.e.home, "Downloads", rel)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		u.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("id,value\n1,42\n"), 0o600); err != nil {
		u.t.Fatal(err)
	}
	return wire.CheckRequest{Command: "cat ~/Downloads/" + rel, Tool: "Bash", WaitMS: 60000}
}

// pending is every pending request, as the person lists them.
func (u *ux) pending() []wire.Request {
	u.t.Helper()
	rs, err := u.person.Pending(context.Background())
	if err != nil {
		u.t.Fatal(err)
	}
	return rs
}

// waitPending waits until n requests are pending and returns them.
func (u *ux) waitPending(n int) []wire.Request {
	u.t.Helper()
	var rs []wire.Request
	waitUntil(u.t, 20*time.Second, fmt.Sprintf("%d pending requests", n), func() bool {
		rs = u.pending()
		return len(rs) == n
	})
	return rs
}

// inbox waits for the one visible inbox window.
func (u *ux) inbox() string {
	u.t.Helper()
	var win string
	waitUntil(u.t, 20*time.Second, "the inbox window", func() bool {
		out, _ := u.w.command("xdotool", "search", "--onlyvisible", "--name", prompt.WindowTitle).Output()
		ws := strings.Fields(string(out))
		if len(ws) == 1 {
			win = ws[0]
		}
		return len(ws) == 1
	})
	time.Sleep(time.Second) // laid out and drawn at its size
	return win
}

// inboxVisible reports whether an inbox window is shown.
func (u *ux) inboxVisible() bool {
	out, _ := u.w.command("xdotool", "search", "--onlyvisible", "--name", prompt.WindowTitle).Output()
	return len(strings.Fields(string(out))) > 0
}

// shot saves window win (its content, without the frame) as an artifact
// named name, and as docs/images/name when PATHGRANT_DOC_IMAGES is set.
func (u *ux) shot(win, name string) {
	u.t.Helper()
	path := filepath.Join(artifactDir(u.t), name)
	u.w.output(u.t, "import", "-window", win, path)
	u.t.Logf("screenshot: %s", path)
	docImage(u.t, path)
}

// screen saves the whole screen, as shot does a window.
func (u *ux) screen(name string) {
	u.t.Helper()
	docImage(u.t, u.w.screenshot(u.t, name))
}

// docImage copies a screenshot into docs/images when
// PATHGRANT_DOC_IMAGES is set: the pictures the docs show are the ones
// these tests take.
func docImage(t *testing.T, path string) {
	t.Helper()
	if os.Getenv("PATHGRANT_DOC_IMAGES") == "" {
		return
	}
	src, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.Create(filepath.Join("..", "docs", "images", filepath.Base(path)))
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
}

// activate gives window win the keyboard as Alt+Tab or a pager does
// (_NET_ACTIVE_WINDOW through the window manager): no pointer involved.
func (u *ux) activate(win string) {
	u.t.Helper()
	u.w.output(u.t, "xdotool", "windowactivate", "--sync", win)
	waitUntil(u.t, 10*time.Second, "window "+win+" active", func() bool { return u.w.activeWindow(u.t) == win })
}

// keys presses keys (xdotool's spelling) in whatever has the keyboard,
// after the allow buttons armed and the window had the keyboard long
// enough for its shortcuts to act.
func (u *ux) keys(keys ...string) {
	u.t.Helper()
	time.Sleep(2*prompt.ArmDelay + 400*time.Millisecond)
	u.w.output(u.t, "xdotool", append([]string{"key", "--clearmodifiers"}, keys...)...)
}

// denyShown denies the request the inbox shows, from the keyboard.
func (u *ux) denyShown() {
	u.t.Helper()
	n := len(u.pending())
	u.activate(u.inbox())
	u.keys("alt+d")
	u.waitPending(n - 1)
}

// notAnswered fails if the waiting check has been answered.
func notAnswered(t *testing.T, ch <-chan wire.Answer, why string) {
	t.Helper()
	select {
	case ans := <-ch:
		t.Fatalf("%s: the waiting check was answered %+v", why, ans)
	default:
	}
}

// dialogObject lays out the dialog for req at size with Fyne's test
// driver (same theme, fonts and scale as the app) and returns where pick's
// object is in the window and its size.
func dialogObject(t *testing.T, req wire.Request, size fyne.Size, pick func(*prompt.Dialog) fyne.CanvasObject) (fyne.Position, fyne.Size) {
	t.Helper()
	a := test.NewTempApp(t)
	a.Settings().SetTheme(theme.DefaultTheme())
	dlg := prompt.NewDialog(req, func(wire.Decision) {})
	w := test.NewTempWindow(t, dlg.Content())
	w.Resize(size)
	w.Resize(size.AddWidthHeight(0, 1))
	w.Resize(size)
	o := pick(dlg)
	return fyne.CurrentApp().Driver().AbsolutePositionForObject(o), o.Size()
}

// TestApprovalUX is issue 43's Show on a person's desktop (xfwm4,
// xfce4-panel, dunst, a 1366x768 screen): the compact request and its
// details, a long path inside the work area with its decision buttons
// visible, approval from the keyboard alone with the pointer never moved,
// typing in another window while a request arrives losing nothing and
// deciding nothing, Escape deciding nothing, a killed paused command's
// window saying so with its notification gone, and the settings window at
// two widths. Screenshots go to e2e/artifacts (and docs/images with
// PATHGRANT_DOC_IMAGES=1).
func TestApprovalUX(t *testing.T) {
	u := startUX(t)
	for _, sub := range []struct {
		name string
		run  func(*ux)
	}{
		{"the compact request and its details", (*ux).compactAndDetails},
		{"a long path on a 1366x768 screen", (*ux).longPath},
		{"keyboard only, the pointer never moved", (*ux).keyboardOnly},
		{"typing in another window while a request arrives", (*ux).typingElsewhere},
		{"Escape decides nothing", (*ux).escape},
		{"a killed paused command", (*ux).killedCommand},
		{"the settings window at two widths", (*ux).settingsWidths},
	} {
		t.Run(sub.name, func(t *testing.T) {
			u.t = t
			sub.run(u)
			if rs := u.pending(); len(rs) != 0 {
				t.Fatalf("left pending: %+v", rs)
			}
		})
	}
}

// compactAndDetails: a request shows who wants what and the choices, with
// the code, the command and the reason behind a closed Details; opened,
// they are there.
func (u *ux) compactAndDetails() {
	answer := agentCheck(u.t, u.e, u.agent, u.file("report.csv"))
	req := u.waitPending(1)[0]
	win := u.inbox()
	u.shot(win, "request-compact.png")
	g := u.w.windowGeometry(u.t, win)
	pos, size := dialogObject(u.t, req, fyne.NewSize(float32(g.W), float32(g.H)),
		func(d *prompt.Dialog) fyne.CanvasObject { return d.Details })
	if pos.Y+size.Height > float32(g.H) {
		u.t.Fatalf("Details at y=%v..%v is below the window's %d px", pos.Y, pos.Y+size.Height, g.H)
	}
	u.w.output(u.t, "xdotool", "mousemove", "--window", win, fmt.Sprint(int(pos.X)+40), fmt.Sprint(int(pos.Y)+18), "click", "1")
	time.Sleep(500 * time.Millisecond)
	// the details open below the fold of their scrolling part: the wheel
	// brings them up, the choices stay at the bottom edge
	u.w.output(u.t, "xdotool", "click", "--repeat", "8", "--delay", "60", "5")
	time.Sleep(time.Second)
	u.shot(win, "request-details.png")
	u.activate(win)
	u.keys("alt+d")
	answered(u.t, answer, guard.Deny)
}

// longPath: on a 1366x768 screen under a panel, a request for a long path
// keeps its window inside the work area and its decision buttons inside
// the window.
func (u *ux) longPath() {
	answer := agentCheck(u.t, u.e, u.agent,
		u.file("quarterly-reports/2026/regional-breakdowns/emea/an-unusually-long-file-name-for-the-board-meeting-final-v3.csv"))
	req := u.waitPending(1)[0]
	win := u.inbox()
	u.screen("prompt-1366x768-long-path.png")
	g := u.w.windowGeometry(u.t, win)
	x, y, width, height, err := u.w.workArea()
	if err != nil {
		u.t.Fatal(err)
	}
	if g.X < x || g.Y < y || g.X+g.W > x+width || g.Y+g.H > y+height {
		u.t.Errorf("the window %+v is not inside the work area %d,%d %dx%d", g, x, y, width, height)
	}
	for _, pick := range []func(*prompt.Dialog) fyne.CanvasObject{
		func(d *prompt.Dialog) fyne.CanvasObject { return d.Once },
		func(d *prompt.Dialog) fyne.CanvasObject { return d.Deny },
		func(d *prompt.Dialog) fyne.CanvasObject { return d.DenySession },
	} {
		pos, size := dialogObject(u.t, req, fyne.NewSize(float32(g.W), float32(g.H)), pick)
		if pos.Y < 0 || pos.Y+size.Height > float32(g.H) || pos.X+size.Width > float32(g.W) {
			u.t.Errorf("a decision button at %v size %v is outside the %dx%d window", pos, size, g.W, g.H)
		}
	}
	u.activate(win)
	u.keys("alt+s") // a session grant of the long path, for the settings window's pictures
	answered(u.t, answer, guard.Allow)
}

// keyboardOnly: the pointer rests elsewhere; the window is given the
// keyboard as Alt+Tab would and Alt+O approves once; the pointer never
// moved.
func (u *ux) keyboardOnly() {
	u.w.output(u.t, "xdotool", "mousemove", "1200", "700")
	before := u.w.pointer(u.t)
	answer := agentCheck(u.t, u.e, u.agent, u.file("keyboard.csv"))
	u.waitPending(1)
	win := u.inbox()
	u.activate(win)
	u.keys("alt+o")
	answered(u.t, answer, guard.Allow)
	if after := u.w.pointer(u.t); after != before {
		u.t.Fatalf("the pointer moved from %s to %s", before, after)
	}
}

// typingElsewhere: the person types in another window (xev, which prints
// every key it gets) while a request arrives: that window keeps the
// keyboard, gets every key (Return and the shortcut letters among them),
// and the request stays pending, undecided.
func (u *ux) typingElsewhere() {
	needTools(u.t, "xev")
	xev := exec.Command("xev", "-name", "typing-here", "-geometry", "360x200+20+60", "-event", "keyboard")
	xev.Env = append(os.Environ(), "DISPLAY="+u.w.Display)
	keysFile := filepath.Join(u.t.TempDir(), "xev.out")
	out, err := os.Create(keysFile)
	if err != nil {
		u.t.Fatal(err)
	}
	defer out.Close()
	xev.Stdout = out
	startGroup(u.t, xev)
	var other string
	waitUntil(u.t, 10*time.Second, "xev's window", func() bool {
		o, _ := u.w.command("xdotool", "search", "--onlyvisible", "--name", "typing-here").Output()
		f := strings.Fields(string(o))
		if len(f) > 0 {
			other = f[0]
		}
		return other != ""
	})
	u.activate(other)
	text := "osadre osadre\nosadre "
	typed := make(chan error, 1)
	go func() {
		cmd := u.w.command("xdotool", "type", "--delay", "120", strings.Repeat(text, 4))
		typed <- cmd.Run()
	}()
	time.Sleep(time.Second)
	answer := agentCheck(u.t, u.e, u.agent, u.file("while-typing.csv"))
	u.waitPending(1)
	if err := <-typed; err != nil {
		u.t.Fatal(err)
	}
	if !u.inboxVisible() {
		u.t.Error("the inbox window is not shown")
	}
	if active := u.w.activeWindow(u.t); active != other {
		u.t.Errorf("the active window is %s, not the one typed in (%s): the inbox took the keyboard", active, other)
	}
	time.Sleep(500 * time.Millisecond)
	xevOut, _ := os.ReadFile(keysFile)
	if got, want := strings.Count(string(xevOut), "KeyRelease event"), len([]rune(strings.Repeat(text, 4))); got < want {
		u.t.Errorf("the window typed in got %d keys of %d", got, want)
	}
	notAnswered(u.t, answer, "typing elsewhere")
	if rs := u.pending(); len(rs) != 1 {
		u.t.Fatalf("pending %+v, want the request still waiting", rs)
	}
	u.screen("typing-elsewhere.png")
	u.denyShown()
	answered(u.t, answer, guard.Deny)
}

// escape: Escape in the inbox hides it and decides nothing; the tray's
// "1 pending request…" shows it again.
func (u *ux) escape() {
	answer := agentCheck(u.t, u.e, u.agent, u.file("escape.csv"))
	u.waitPending(1)
	win := u.inbox()
	u.activate(win)
	u.keys("Escape")
	waitUntil(u.t, 10*time.Second, "Escape to hide the window", func() bool { return !u.inboxVisible() })
	time.Sleep(time.Second)
	notAnswered(u.t, answer, "Escape")
	if rs := u.pending(); len(rs) != 1 {
		u.t.Fatalf("pending after Escape %+v, want the request still waiting", rs)
	}
	u.w.chooseInPanelMenu(u.t, 1) // "1 pending request…"
	u.inbox()
	u.denyShown()
	answered(u.t, answer, guard.Deny)
}

// killedCommand: a confined command paused in its open of a Downloads
// file is killed; its window says in place that the request ended, and
// its notification is no longer shown.
func (u *ux) killedCommand() {
	u.file("held.csv")
	u.w.output(u.t, "dunstctl", "close-all")
	// A workspace script: the guard cannot see into it, so the command
	// runs and is paused in its open of the Downloads file.
	script := filepath.Join(u.e.work, "held.sh")
	if err := os.WriteFile(script, []byte("cat "+u.e.home+"/Downloads/held.csv\n"), 0o700); err != nil {
		u.t.Fatal(err)
	}
	cmd := startAppCommand(u.t, u.w.desktop, u.e, u.agent, "/usr/bin/bash", "./held.sh")
	var req wire.Request
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if rs := u.pending(); len(rs) == 1 {
			req = rs[0]
			if req.Held == "" {
				u.t.Fatalf("the request %+v is not a paused command's", req)
			}
			break
		}
		if !cmd.running() || time.Now().After(deadline) {
			u.t.Fatalf("no request from the paused command (running %v); its output: %q", cmd.running(), cmd.out.String())
		}
	}
	win := u.inbox()
	waitUntil(u.t, 10*time.Second, "its notification shown", func() bool { return u.displayed() == 1 })
	u.shot(win, "paused-command.png")
	if err := syscall.Kill(-cmd.cmd.Process.Pid, syscall.SIGKILL); err != nil {
		u.t.Fatal(err)
	}
	waitUntil(u.t, 20*time.Second, "the request to end", func() bool {
		r, err := u.person.Request(context.Background(), req.ID)
		return err == nil && r.State == wire.StateEnded
	})
	r, _ := u.person.Request(context.Background(), req.ID)
	if r.Ended == "" {
		u.t.Errorf("the ended request %+v does not say why", r)
	}
	waitUntil(u.t, 10*time.Second, "its notification withdrawn", func() bool { return u.displayed() == 0 })
	time.Sleep(time.Second)
	if !u.inboxVisible() {
		u.t.Fatal("the window vanished instead of saying the request ended")
	}
	u.shot(win, "paused-command-ended.png")
	u.activate(win)
	u.keys("Escape")
	waitUntil(u.t, 10*time.Second, "the ended request's window to close", func() bool { return !u.inboxVisible() })
}

// displayed is how many notifications dunst shows.
func (u *ux) displayed() int {
	out, err := u.w.command("dunstctl", "count", "displayed").Output()
	if err != nil {
		return -1
	}
	n, _ := strconv.Atoi(strings.TrimSpace(string(out)))
	return n
}

// settingsWidths: the settings window, opened from the panel's menu, at a
// narrow and a wide size.
func (u *ux) settingsWidths() {
	u.w.chooseInPanelMenu(u.t, 1) // "Grants and audit…" (no request pending)
	var win string
	waitUntil(u.t, 20*time.Second, "the settings window", func() bool {
		out, _ := u.w.command("xdotool", "search", "--onlyvisible", "--name", tray.SettingsTitle).Output()
		f := strings.Fields(string(out))
		if len(f) > 0 {
			win = f[0]
		}
		return win != ""
	})
	for _, size := range []struct {
		w, h int
		name string
	}{{900, 600, "settings-900.png"}, {1340, 700, "settings-1340.png"}} {
		u.w.output(u.t, "xdotool", "windowsize", "--sync", win, fmt.Sprint(size.w), fmt.Sprint(size.h))
		time.Sleep(1500 * time.Millisecond)
		if g := u.w.windowGeometry(u.t, win); g.W != size.w {
			u.t.Errorf("the settings window is %d px wide, asked %d", g.W, size.w)
		}
		u.shot(win, size.name)
	}
}
