package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"

	"pathgrant/apiclient"
	"pathgrant/grants"
	"pathgrant/guard"
	"pathgrant/ipc/ipctest"
	"pathgrant/prompt"
	"pathgrant/tray"
	"pathgrant/wire"
)

// startTheApp starts the real app (`pathgrant`) on e's socket and store,
// its output in artifactDir/log, and waits for its socket.
func startTheApp(t *testing.T, d *desktop, e appEnv, log string) *exec.Cmd {
	t.Helper()
	app := exec.Command(appBinary(t))
	app.Env = e.vars(d)
	logf, err := os.Create(filepath.Join(artifactDir(t), log))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { logf.Close() })
	app.Stdout, app.Stderr = logf, logf
	startGroup(t, app)
	c := apiclient.New(e.socket)
	waitUntil(t, 30*time.Second, "the app's socket", func() bool { return c.Health(context.Background()) == nil })
	return app
}

// agentSession registers a claude session in e's workspace.
func agentSession(t *testing.T, e appEnv) *apiclient.Client {
	t.Helper()
	sess, err := apiclient.New(e.socket).Register(context.Background(),
		wire.SessionRequest{Agent: "claude", Cwd: e.work, Workspace: []string{e.work}})
	if err != nil {
		t.Fatal(err)
	}
	agent := apiclient.New(e.socket)
	agent.Session, agent.Token = sess.ID, sess.Token
	return agent
}

// agentCheck sends a check of the agent's session from processes of its
// own, curl under timeout, which stands for the agent: the daemon marks
// them as the session's agent, and the test process stays the person, who
// may list, decide and raise.
func agentCheck(t *testing.T, e appEnv, agent *apiclient.Client, req wire.CheckRequest) <-chan wire.Answer {
	t.Helper()
	body, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, "timeout", "120", "curl", "-sS", "--unix-socket", e.socket,
		"-H", wire.HeaderSession+": "+agent.Session, "-H", wire.HeaderToken+": "+agent.Token,
		"-H", "Content-Type: application/json", "--data-binary", string(body), "http://pathgrant"+wire.PathCheck)
	out := make(chan wire.Answer, 1)
	go func() {
		b, err := cmd.Output()
		var ans wire.Answer
		if err != nil || json.Unmarshal(b, &ans) != nil {
			ans.Reason = fmt.Sprintf("check: %v: %s", err, b)
		}
		out <- ans
	}()
	return out
}

// pendingOne waits until the person's list holds exactly one request.
func pendingOne(t *testing.T, c *apiclient.Client) wire.Request {
	t.Helper()
	var ps []wire.Request
	var err error
	deadline := time.Now().Add(10 * time.Second)
	for ps, err = c.Pending(context.Background()); err != nil || len(ps) != 1; ps, err = c.Pending(context.Background()) {
		if time.Now().After(deadline) {
			t.Fatalf("pending requests %+v %v, want one", ps, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return ps[0]
}

// cliRun runs the pathgrant CLI against e from another process and
// returns its stdout and exit status.
func cliRun(t *testing.T, d *desktop, e appEnv, args ...string) (string, int) {
	t.Helper()
	return cliRunIn(t, d, e, "", args...)
}

// cliRunIn is cliRun with stdin on the command's standard input: an
// approval code is piped in, never given on the command line.
func cliRunIn(t *testing.T, d *desktop, e appEnv, stdin string, args ...string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, appBinary(t), args...)
	cmd.Env = e.vars(d)
	cmd.Stdin = strings.NewReader(stdin)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		t.Logf("pathgrant %v: exit %d, stderr %s", args, ee.ExitCode(), stderr.String())
		return string(out), ee.ExitCode()
	case err != nil:
		t.Fatalf("pathgrant %v: %v (stderr %s)", args, err, stderr.String())
	}
	return string(out), 0
}

func answered(t *testing.T, answer <-chan wire.Answer, want wire.Verdict) {
	t.Helper()
	select {
	case ans := <-answer:
		if ans.Decision != want {
			t.Fatalf("the waiting check was answered %+v, want %s", ans, want)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the waiting check was never answered")
	}
}

func requestState(t *testing.T, c *apiclient.Client, id string) string {
	t.Helper()
	r, err := c.Request(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return r.State
}

// TestSettingsRaisesTheApp: with the app running and a request pending,
// `pathgrant settings` from another process exits 0 at once, having shown
// the app's own windows (no window of its own); a click on "Allow once"
// in the app's prompt approves with no code.
func TestSettingsRaisesTheApp(t *testing.T) {
	d := startDesktop(t)
	e := newAppEnv(t)
	app := startTheApp(t, d, e, "settings-raise-app.log")
	c := apiclient.New(e.socket)
	agent := agentSession(t, e)
	answer := agentCheck(t, e, agent, wire.CheckRequest{Command: "cat ~/Downloads/report.csv", Tool: "Bash", WaitMS: 60000})
	req := pendingOne(t, c)
	// The window the app opened at start (no tray here) is put away, as a
	// person closing it would.
	unmap(t, d, tray.SettingsTitle)

	out, code := cliRun(t, d, e, "settings")
	if code != 0 || strings.Count(out, "\n") != 1 || !strings.Contains(out, "running app shows its settings window") {
		t.Fatalf("pathgrant settings: exit %d, output %q", code, out)
	}
	pid := fmt.Sprint(appPid(t, app)) // the windows are the app's, the daemon's child
	// the settings window shown
	d.output(t, "xdotool", "search", "--sync", "--all", "--onlyvisible", "--pid", pid, "--name", tray.SettingsTitle)
	win := strings.Fields(d.output(t, "xdotool", "search", "--sync", "--all", "--pid", pid, "--name", prompt.WindowTitle))[0]
	d.screenshot(t, "settings-raised.png")
	// No window manager here stacks the windows: take the settings
	// window away so that the click lands on the prompt.
	unmap(t, d, tray.SettingsTitle)
	clickButton(t, d, win, req, prompt.LabelOnce)
	d.screenshot(t, "settings-raised-clicked.png")
	answered(t, answer, wire.Allow)
	if st := requestState(t, c, req.ID); st != wire.StateApproved {
		t.Fatalf("request %s, want approved", st)
	}
}

// TestSecondLaunchRaises: `pathgrant` while the app runs on the socket
// asks it to show its window and exits 0 with one line; the first app
// keeps serving.
func TestSecondLaunchRaises(t *testing.T) {
	d := startDesktop(t)
	e := newAppEnv(t)
	startTheApp(t, d, e, "second-launch-app.log")
	unmap(t, d, tray.SettingsTitle) // the window it opened at start, put away
	out, code := cliRun(t, d, e)
	if code != 0 || strings.Count(out, "\n") != 1 || !strings.Contains(out, "already running on "+e.socket) {
		t.Fatalf("second launch: exit %d, output %q", code, out)
	}
	if err := apiclient.New(e.socket).Health(context.Background()); err != nil {
		t.Fatalf("the first app stopped serving: %v", err)
	}
	// Nothing waits, so the app shows its settings window.
	d.output(t, "xdotool", "search", "--sync", "--onlyvisible", "--name", tray.SettingsTitle)
}

// TestSettingsHeadlessNeedsTheCode: with a headless daemon, `pathgrant
// settings` opens its own window, whose prompt asks for the code: Allow
// with no code keeps the window open and the request pending; the code
// from the daemon's log then approves.
func TestSettingsHeadlessNeedsTheCode(t *testing.T) {
	d := startDesktop(t)
	e := newAppEnv(t)
	logPath := filepath.Join(artifactDir(t), "settings-headless-daemon.log")
	logf, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	daemon := exec.Command(appBinary(t), "serve", "--headless")
	daemon.Env = e.vars(d)
	daemon.Stdout, daemon.Stderr = logf, logf
	startGroup(t, daemon)
	c := apiclient.New(e.socket)
	waitUntil(t, 20*time.Second, "the headless daemon", func() bool { return c.Health(context.Background()) == nil })
	agent := agentSession(t, e)
	answer := agentCheck(t, e, agent, wire.CheckRequest{Command: "cat ~/Downloads/report.csv", Tool: "Bash", WaitMS: 60000})
	req := pendingOne(t, c)
	var code string
	waitUntil(t, 10*time.Second, "the approval code in the daemon's log", func() bool {
		b, _ := os.ReadFile(logPath)
		code = ipctest.CodeFromLog(string(b), req.ID, "") // once, the choice the test clicks
		return code != ""
	})

	settings := exec.Command(appBinary(t), "settings")
	settings.Env = e.vars(d)
	startGroup(t, settings)
	win := strings.Fields(d.output(t, "xdotool", "search", "--sync", "--name", prompt.WindowTitle))[0]
	d.output(t, "xdotool", "windowraise", win)
	size := windowSize(t, d, win)
	click(t, d, win, askCodeCenter(t, req, prompt.LabelOnce, size))
	time.Sleep(2 * time.Second)
	d.screenshot(t, "settings-code-missing.png")
	if recs, err := c.Audit(context.Background(), grants.AuditFilter{Kind: grants.KindCode}); err != nil || len(recs) != 1 {
		t.Fatalf("the click on Allow never reached the daemon as a missing code: %+v %v", recs, err)
	}
	// xdotool exits 1 when it finds no window.
	if ids, _ := d.command("xdotool", "search", "--name", prompt.WindowTitle).Output(); !strings.Contains(string(ids), win) {
		t.Fatalf("the prompt closed on a missing code, approving nothing (windows %q)", ids)
	}
	if st := requestState(t, c, req.ID); st != wire.StatePending {
		t.Fatalf("request %s after a missing code, want pending", st)
	}
	click(t, d, win, askCodeCenter(t, req, prompt.CodePlaceholder, size))
	d.output(t, "xdotool", "type", "--window", win, code)
	click(t, d, win, askCodeCenter(t, req, prompt.LabelOnce, size))
	answered(t, answer, wire.Allow)
	if st := requestState(t, c, req.ID); st != wire.StateApproved {
		t.Fatalf("request %s with the code, want approved", st)
	}
}

// unmap takes the windows titled title off the screen (there is no
// window manager to stack them), so that clicks land on what is below.
// unmap puts away every window titled title, as a person closing it
// would, and keeps it away: the app may map a window again after it was
// first found (a Show that was still queued on a loaded machine), so it
// is unmapped again until none has shown for a second.
func unmap(t *testing.T, d *desktop, title string) {
	t.Helper()
	unmapAll(t, d, d.output(t, "xdotool", "search", "--sync", "--name", title))
	away := time.Now()
	for deadline := time.Now().Add(15 * time.Second); time.Since(away) < time.Second; time.Sleep(100 * time.Millisecond) {
		out, _ := d.command("xdotool", "search", "--onlyvisible", "--name", title).Output()
		if shown := strings.Fields(string(out)); len(shown) > 0 {
			if time.Now().After(deadline) {
				t.Fatalf("the window %q keeps showing again after it was put away", title)
			}
			unmapAll(t, d, string(out))
			away = time.Now()
		}
	}
}

func unmapAll(t *testing.T, d *desktop, windows string) {
	t.Helper()
	for _, w := range strings.Fields(windows) {
		d.output(t, "xdotool", "windowunmap", w)
	}
}

func windowSize(t *testing.T, d *desktop, win string) fyne.Size {
	t.Helper()
	var w, h float32
	for _, line := range strings.Split(d.output(t, "xdotool", "getwindowgeometry", "--shell", win), "\n") {
		fmt.Sscanf(line, "WIDTH=%g", &w)
		fmt.Sscanf(line, "HEIGHT=%g", &h)
	}
	return fyne.NewSize(w, h)
}

func click(t *testing.T, d *desktop, win string, at fyne.Position) {
	t.Helper()
	time.Sleep(prompt.ArmDelay + 300*time.Millisecond)
	d.output(t, "xdotool", "mousemove", "--window", win, fmt.Sprint(int(at.X)), fmt.Sprint(int(at.Y)), "click", "1")
}

// askCodeCenter is where the button labelled label, or the code entry
// (label prompt.CodePlaceholder), is in a prompt that asks for the code,
// laid out as buttonCenter lays out the app's.
func askCodeCenter(t *testing.T, req wire.Request, label string, size fyne.Size) fyne.Position {
	t.Helper()
	a := test.NewTempApp(t)
	a.Settings().SetTheme(theme.DefaultTheme())
	dlg := prompt.NewDialog(req, func(wire.Decision) {})
	dlg.AskCode()
	w := test.NewTempWindow(t, dlg.Content())
	w.Resize(size)
	w.Resize(size.AddWidthHeight(0, 1))
	w.Resize(size)
	var o fyne.CanvasObject
	switch label {
	case prompt.CodePlaceholder:
		o = dlg.CodeEntry
	case prompt.LabelOnce:
		o = dlg.Once
	default:
		t.Fatalf("no %q in the prompt", label)
	}
	pos := fyne.CurrentApp().Driver().AbsolutePositionForObject(o)
	return pos.Add(fyne.NewPos(o.Size().Width/2, o.Size().Height/2))
}

// TestSettingsScreenshot: the settings window with grants of each kind, a
// remembered denial and audit rows (a refused check and a wrong code
// among them), saved as settings.png for the README
// (docs/images/settings.png).
func TestSettingsScreenshot(t *testing.T) {
	d := startDesktop(t)
	e := newAppEnv(t)
	seedGrants(t, e)
	startTheApp(t, d, e, "settings-screenshot-app.log")
	c := apiclient.New(e.socket)
	agent := agentSession(t, e)
	ctx := context.Background()

	for _, f := range []string{"taxes.csv", "notes.txt"} {
		if err := os.WriteFile(e.home+"/Downloads/"+f, []byte("year,owed\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// A session grant, approved in the app's own prompt.
	answer := agentCheck(t, e, agent, wire.CheckRequest{Command: "cat ~/Downloads/notes.txt",
		Tool: "Bash", WaitMS: 60000})
	req := pendingOne(t, c)
	win := strings.Fields(d.output(t, "xdotool", "search", "--sync", "--name", prompt.WindowTitle))[0]
	clickButton(t, d, win, req, prompt.LabelSession) // the prompt opened last, on top
	answered(t, answer, wire.Allow)

	// A wrong code, then "Deny for this session": a remembered denial.
	secret := wire.CheckRequest{Command: "cat ~/Downloads/taxes.csv", Tool: "Bash"}
	<-agentCheck(t, e, agent, secret)
	req = pendingOne(t, c)
	if _, err := c.Decide(ctx, req.ID, wire.Decision{Scope: "once", Code: "000000"}); err == nil {
		t.Fatal("a wrong code approved")
	}
	if _, err := c.Decide(ctx, req.ID, wire.Decision{Scope: "deny", Remember: true}); err != nil {
		t.Fatal(err)
	}
	if ans := <-agentCheck(t, e, agent, secret); ans.Decision != wire.Deny || ans.Pending != "" {
		t.Fatalf("a remembered denial asked again: %+v", ans)
	}
	<-agentCheck(t, e, agent, wire.CheckRequest{Command: "cat ~/.ssh/id_ed25519", Tool: "Bash"})
	if ds, err := c.Denials(ctx); err != nil || len(ds) != 1 || ds[0].Hits != 1 {
		t.Fatalf("remembered denials %+v %v", ds, err)
	}
	for _, k := range []grants.Kind{grants.KindRefuse, grants.KindCode} {
		if recs, err := c.Audit(ctx, grants.AuditFilter{Kind: k}); err != nil || len(recs) == 0 {
			t.Fatalf("%s records %+v %v", k, recs, err)
		}
	}

	if out, code := cliRun(t, d, e, "settings"); code != 0 {
		t.Fatalf("pathgrant settings: exit %d %q", code, out)
	}
	win = strings.Fields(d.output(t, "xdotool", "search", "--sync", "--onlyvisible", "--name", tray.SettingsTitle))[0]
	time.Sleep(time.Second) // the first refresh
	windowShot(t, d, win, "settings.png")
	size := windowSize(t, d, win)
	for tab, shot := range map[string]string{tray.TabDenials: "settings-denials.png", tray.TabAudit: "settings-audit.png"} {
		at := tabCenter(t, c, tab, size)
		click(t, d, win, at)
		time.Sleep(500 * time.Millisecond)
		windowShot(t, d, win, shot)
	}
}

// windowShot saves one window as a PNG artifact.
func windowShot(t *testing.T, d *desktop, win, name string) {
	t.Helper()
	path := filepath.Join(artifactDir(t), name)
	d.output(t, "import", "-window", win, path)
	t.Logf("screenshot: %s", path)
}

// tabCenter is where the settings window's tab titled tab is, laid out
// as the app's window (with its no-tray notice) at size by Fyne's test
// driver.
func tabCenter(t *testing.T, c *apiclient.Client, tab string, size fyne.Size) fyne.Position {
	t.Helper()
	a := test.NewTempApp(t)
	a.Settings().SetTheme(theme.DefaultTheme())
	s := tray.NewSettings(a, tray.Remote{Client: c}, func(wire.Request) {})
	s.SetNotice(tray.NoTrayNotice)
	s.Win.Resize(size)
	s.Win.Resize(size.AddWidthHeight(0, 1))
	s.Win.Resize(size)
	test.LaidOutObjects(s.Win.Content())
	pos, ok := textAt(s.Win.Content(), tab, fyne.Position{})
	if !ok {
		t.Fatalf("no tab %q in the settings window", tab)
	}
	return pos
}

// textAt finds the text in o's tree, through containers and widgets'
// renderers, and returns its centre relative to o's parent at origin.
func textAt(o fyne.CanvasObject, text string, origin fyne.Position) (fyne.Position, bool) {
	at := origin.Add(o.Position())
	if txt, ok := o.(*canvas.Text); ok && txt.Text == text {
		return at.Add(fyne.NewPos(txt.Size().Width/2, txt.Size().Height/2)), true
	}
	var children []fyne.CanvasObject
	switch v := o.(type) {
	case *fyne.Container:
		children = v.Objects
	case fyne.Widget:
		children = test.WidgetRenderer(v).Objects()
	}
	for _, c := range children {
		if c.Visible() {
			if p, ok := textAt(c, text, at); ok {
				return p, true
			}
		}
	}
	return fyne.Position{}, false
}

// seedGrants puts device grants in the store before the app opens it: a
// file for good, a folder for 8 hours.
func seedGrants(t *testing.T, e appEnv) {
	t.Helper()
	for _, dir := range []string{filepath.Dir(e.store), e.home + "/Downloads/data"} {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	st, err := grants.Open(e.store, grants.Options{NoWatch: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, n := range []grants.NewGrant{
		{Scope: grants.ScopeDevice, Op: guard.OpRead, Path: e.home + "/Downloads/report.csv", Kind: guard.KindFile, Agent: "claude"},
		{Scope: grants.ScopeDevice, Op: guard.OpRead, Path: e.home + "/Downloads/data", Kind: guard.KindFolder, Agent: "codex", For: 8 * time.Hour},
	} {
		if _, err := st.Put(n); err != nil {
			t.Fatal(err)
		}
	}
}
