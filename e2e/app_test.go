package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"

	"pathgrant/apiclient"
	"pathgrant/appdirs"
	"pathgrant/grants"
	"pathgrant/guard"
	"pathgrant/prompt"
	"pathgrant/tray"
	"pathgrant/wire"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// appBinary builds the real pathgrant binaries (the CLI and pathgrant-ui,
// side by side) once per test run and returns the CLI's path.
func appBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "pathgrant-e2e-bin-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "pathgrant")
		for _, pkg := range []string{"pathgrant", "pathgrant/cmd/pathgrant-confine", "pathgrant/cmd/pathgrant-ui"} {
			cmd := exec.Command("go", "build", "-o", dir, pkg)
			if pkg != "pathgrant/cmd/pathgrant-ui" {
				cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
			}
			out, err := cmd.CombinedOutput()
			if err != nil {
				buildErr = fmt.Errorf("go build %s: %v\n%s", pkg, err, out)
				return
			}
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// appEnv is a user's home with a workspace and a Downloads folder, and the
// app's socket and store inside the test's own folders.
type appEnv struct {
	home, work, socket, store string
}

func newAppEnv(t *testing.T) appEnv {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	e := appEnv{home: root + "/home", socket: root + "/run/pathgrant.sock", store: root + "/state/pathgrant.db"}
	e.work = e.home + "/work"
	for _, f := range []string{e.work + "/main.go", e.home + "/Downloads/report.csv"} {
		if err := os.MkdirAll(filepath.Dir(f), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte("id,value\n1,42\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

func (e appEnv) vars(d *desktop) []string {
	return append(os.Environ(), "HOME="+e.home, "DISPLAY="+d.Display, "DBUS_SESSION_BUS_ADDRESS="+d.Bus,
		"FYNE_SCALE=1", "LANG=C.UTF-8", appdirs.SocketEnv+"="+e.socket, appdirs.StoreEnv+"="+e.store)
}

// TestAppApproval is the user's path through the real app: a denied
// Downloads read from a session opens the prompt and one notification; a
// click on "Allow for this session" answers the waiting check, the retry is
// allowed, and the grant is in the store.
func TestAppApproval(t *testing.T) {
	d := startDesktop(t)
	e := newAppEnv(t)
	app := exec.Command(appBinary(t))
	app.Env = e.vars(d)
	logf, _ := os.Create(filepath.Join(artifactDir(t), "app.log"))
	defer logf.Close()
	app.Stdout, app.Stderr = logf, logf
	startGroup(t, app)
	c := apiclient.New(e.socket)
	waitUntil(t, 30*time.Second, "the app's socket", func() bool { return c.Health(context.Background()) == nil })

	sess, err := c.Register(context.Background(), wire.SessionRequest{Agent: "claude", Cwd: e.work, Workspace: []string{e.work}})
	if err != nil {
		t.Fatal(err)
	}
	agent := apiclient.New(e.socket)
	agent.Session, agent.Token = sess.ID, sess.Token
	read := wire.CheckRequest{Command: "cat ~/Downloads/report.csv", Tool: "Bash"}
	answer := waitingCheck(agent, read)

	win := d.output(t, "xdotool", "search", "--sync", "--name", prompt.WindowTitle)
	win = strings.Fields(win)[0]
	for range 3 { // repeats coalesce: still one prompt and one notification
		if ans, err := agent.Check(context.Background(), read); err != nil || ans.Pending == "" {
			t.Fatalf("repeat: %+v %v", ans, err)
		}
	}
	// This process sent the checks, so it sees the session's own requests
	// only: every session's list is for the person.
	pending, err := agent.Pending(context.Background())
	if err != nil || len(pending) != 1 || pending[0].Count != 4 {
		t.Fatalf("pending %+v %v", pending, err)
	}
	d.screenshot(t, "prompt.png")
	clickButton(t, d, win, pending[0], prompt.LabelSession)

	select {
	case ans := <-answer:
		if ans.Decision != guard.Allow {
			t.Fatalf("the waiting check was answered %+v", ans)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the waiting check was never answered")
	}
	if ans, err := agent.Check(context.Background(), read); err != nil || ans.Decision != guard.Allow {
		t.Fatalf("retry: %+v %v", ans, err)
	}
	assertOneNotification(t, d)
	showSettings(t, d)
	stopApp(t, app)
	assertGrantStored(t, e, sess.ID)
}

// waitingCheck sends a check that waits for the user, and delivers its
// answer on the channel.
func waitingCheck(c *apiclient.Client, req wire.CheckRequest) <-chan wire.Answer {
	out := make(chan wire.Answer, 1)
	req.WaitMS = 60000
	go func() {
		ans, err := c.Check(context.Background(), req)
		if err != nil {
			ans.Reason = err.Error()
		}
		out <- ans
	}()
	return out
}

// clickButton clicks the button labelled label in the prompt window win.
// Its position comes from laying out the same dialog, for the same request
// and window size, with Fyne's test driver: same theme, same fonts, scale 1.
func clickButton(t *testing.T, d *desktop, win string, req wire.Request, label string) {
	t.Helper()
	var w, h float32
	geo := d.output(t, "xdotool", "getwindowgeometry", "--shell", win)
	for _, line := range strings.Split(geo, "\n") {
		fmt.Sscanf(line, "WIDTH=%g", &w)
		fmt.Sscanf(line, "HEIGHT=%g", &h)
	}
	x, y := buttonCenter(t, req, label, fyne.NewSize(w, h))
	time.Sleep(prompt.ArmDelay + 300*time.Millisecond) // the allow buttons arm after the delay
	d.output(t, "xdotool", "mousemove", "--window", win, fmt.Sprint(int(x)), fmt.Sprint(int(y)), "click", "1")
}

func buttonCenter(t *testing.T, req wire.Request, label string, size fyne.Size) (float32, float32) {
	t.Helper()
	a := test.NewTempApp(t)
	a.Settings().SetTheme(theme.DefaultTheme()) // the app's theme: the test theme's text sizes differ
	dlg := prompt.NewDialog(req, func(wire.Decision) {})
	w := test.NewTempWindow(t, dlg.Content())
	// Wrapped labels know their height only once laid out at their width:
	// lay out twice, as the real window settles, before asking positions.
	w.Resize(size)
	w.Resize(size.AddWidthHeight(0, 1))
	w.Resize(size)
	for _, b := range []*fyneButton{{dlg.Once}, {dlg.Session}, {dlg.Device}, {dlg.Deny}} {
		if b.Button != nil && b.Text == label {
			pos := fyne.CurrentApp().Driver().AbsolutePositionForObject(b.Button)
			return pos.X + b.Size().Width/2, pos.Y + b.Size().Height/2
		}
	}
	t.Fatalf("no button %q in the prompt", label)
	return 0, 0
}

// assertOneNotification: one request, one notification, however often
// the agent repeated it.
func assertOneNotification(t *testing.T, d *desktop) {
	t.Helper()
	d.output(t, "dunstctl", "close-all")
	var hist struct {
		Data [][]struct {
			Summary struct{ Data string } `json:"summary"`
		} `json:"data"`
	}
	waitUntil(t, 10*time.Second, "the notification in dunst's history", func() bool {
		out := d.output(t, "dunstctl", "history")
		return json.Unmarshal([]byte(out), &hist) == nil && len(hist.Data) > 0 && len(hist.Data[0]) > 0
	})
	count := map[string]int{}
	for _, h := range hist.Data[0] {
		count[h.Summary.Data]++
	}
	// This desktop has no tray host, so the app also says once how to
	// reach its windows.
	if count[prompt.NotifyTitle] != 1 || count["pathgrant is running"] != 1 || len(hist.Data[0]) != 2 {
		t.Fatalf("notifications %v, want one approval request and one no-tray notice", count)
	}
}

// showSettings saves a screenshot of the app's own settings window, which
// opened at start on this desktop without a tray, with the new grant in
// it. (TestSettingsScreenshot takes settings.png for the README.)
func showSettings(t *testing.T, d *desktop) {
	t.Helper()
	d.output(t, "xdotool", "search", "--sync", "--onlyvisible", "--name", tray.SettingsTitle)
	time.Sleep(3 * time.Second) // the prompt closed, the window refreshed
	d.screenshot(t, "app-settings.png")
}

func stopApp(t *testing.T, app *exec.Cmd) {
	t.Helper()
	if err := app.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- app.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("app exit: %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("app did not stop on SIGTERM")
	}
}

// openStore opens the store file the app used, after it stopped; it is
// closed with the test.
func openStore(t *testing.T, e appEnv) *grants.Store {
	t.Helper()
	st, err := grants.Open(e.store, grants.Options{NoWatch: true, NoCreate: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// assertGrantStored opens the store file the app used, after it stopped.
func assertGrantStored(t *testing.T, e appEnv, session string) {
	t.Helper()
	st := openStore(t, e)
	gs, err := st.List(grants.Filter{Session: session})
	if err != nil || len(gs) != 1 || gs[0].Scope != grants.ScopeSession || gs[0].Path != e.home+"/Downloads/report.csv" {
		t.Fatalf("grants in the store: %+v %v", gs, err)
	}
}
