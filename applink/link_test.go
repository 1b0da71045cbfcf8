package applink

import (
	"errors"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"pathgrant/engine"
	"pathgrant/wire"
)

// recorder is a fallback approver that records what it was told.
type recorder struct {
	mu    sync.Mutex
	shown []string
	codes map[string][]wire.ChoiceCode
}

func (r *recorder) Show(req wire.Request, codes []wire.ChoiceCode) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.shown = append(r.shown, req.ID)
	if r.codes == nil {
		r.codes = map[string][]wire.ChoiceCode{}
	}
	r.codes[req.ID] = codes
}

func (r *recorder) Withdraw(string) {}

func (r *recorder) told() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.shown)
}

// fakeLink is a link whose app is this test binary's fakeApp, logging to
// the returned file; quit makes it quit at its first event.
func fakeLink(t *testing.T, quit bool, env ...string) (*Link, *recorder, string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	if quit {
		if err := os.WriteFile(filepath.Join(home, "quit"), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	logPath := filepath.Join(home, "app.log")
	fb := &recorder{}
	base := append([]string{"DISPLAY=:99", "HOME=" + home}, env...)
	l := New(Config{Binary: exe, Socket: "/run/test/pathgrant.sock", Fallback: fb, RestartDelay: 50 * time.Millisecond,
		Environ: func() []string { return base }, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	t.Cleanup(l.Stop)
	return l, fb, logPath
}

// waitFor polls cond for up to 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// shownBy lists the ids pid was shown, in order, without those withdrawn.
func shownBy(log []logged, pid int) []string {
	var ids []string
	for _, l := range log {
		switch {
		case l.Pid != pid:
		case l.Event.Kind == EventShow:
			ids = append(ids, l.Event.Request.ID)
		case l.Event.Kind == EventWithdraw:
			ids = slices.DeleteFunc(ids, func(id string) bool { return id == l.Event.ID })
		}
	}
	return ids
}

func code(c string) []wire.ChoiceCode { return []wire.ChoiceCode{{Code: c}} }

// TestAppKilledShowsTheSameInbox: an app killed while three requests
// wait is started again and shown the same three, with their codes; what
// came while it was gone went to the fallback, and what was withdrawn
// meanwhile is not shown again.
func TestAppKilledShowsTheSameInbox(t *testing.T) {
	l, fb, logPath := fakeLink(t, false)
	if err := l.Start(""); err != nil {
		t.Fatal(err)
	}
	first := l.Running()
	for _, id := range []string{"a", "b", "c"} {
		l.Show(wire.Request{ID: id, Path: "/home/u/Downloads/" + id}, code("code-"+id))
	}
	waitFor(t, "the app to show three", func() bool { return len(shownBy(readLog(t, logPath), first)) == 3 })
	if err := syscall.Kill(first, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the app gone", func() bool { return l.Running() != first })
	l.Withdraw("b")
	l.Show(wire.Request{ID: "d"}, code("code-d"))
	waitFor(t, "the app started again", func() bool { p := l.Running(); return p != 0 && p != first })
	second := l.Running()
	waitFor(t, "the new app's inbox", func() bool {
		return slices.Equal(shownBy(readLog(t, logPath), second), []string{"a", "c", "d"})
	})
	for _, e := range readLog(t, logPath) {
		if e.Pid == second && e.Event.Kind == EventShow && !strings.HasSuffix(e.Event.Codes[0].Code, e.Event.Request.ID) {
			t.Errorf("request %s shown again with codes %v", e.Event.Request.ID, e.Event.Codes)
		}
	}
	if told := fb.told(); !slices.Contains(told, "d") {
		t.Errorf("the fallback was told %v while no app ran, want d among them", told)
	}
}

// TestAppQuitStaysQuit: the person quitting the app is no crash: it is
// not started again, the fallback is told of every request that waits,
// and Start (`pathgrant app`) brings it back with the inbox.
func TestAppQuitStaysQuit(t *testing.T) {
	l, fb, logPath := fakeLink(t, true)
	l.Show(wire.Request{ID: "a"}, code("code-a"))
	if err := l.Start(""); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the app to quit", func() bool { return l.Running() == 0 && len(readLog(t, logPath)) > 0 })
	time.Sleep(300 * time.Millisecond) // six restart delays
	if pid := l.Running(); pid != 0 {
		t.Fatalf("an app that was quit was started again (pid %d)", pid)
	}
	if told := fb.told(); !slices.Contains(told, "a") {
		t.Errorf("after quitting, the fallback was told %v, want a", told)
	}
	if err := l.Start(wire.ViewInbox); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a second app", func() bool {
		pids := map[int]bool{}
		for _, e := range readLog(t, logPath) {
			pids[e.Pid] = true
		}
		return len(pids) == 2
	})
}

// TestAppCrashingIsStartedAgain: an app that dies at once is started
// again for good, at a growing delay, so no process that kills it can
// switch it off; from maxCrashes on, the fallback is told what waits.
func TestAppCrashingIsStartedAgain(t *testing.T) {
	l, fb, _ := fakeLink(t, false, "HOME=/nonexistent") // the fake app cannot open its log: exit 1
	l.Show(wire.Request{ID: "a"}, code("code-a"))
	if err := l.Start(""); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "more crashes than maxCrashes", func() bool {
		l.mu.Lock()
		defer l.mu.Unlock()
		return len(l.crashes) > maxCrashes
	})
	l.mu.Lock()
	quit := l.quit
	l.mu.Unlock()
	if quit {
		t.Error("the link gave up on the app")
	}
	if told := fb.told(); !slices.Contains(told, "a") {
		t.Errorf("the fallback was told %v, want a", told)
	}
}

// TestAppKeepsItsDisplay: once an app has shown its window, the apps
// after it are started on the same display, whatever the environment
// says since (any process of the person's may set the user manager's).
func TestAppKeepsItsDisplay(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	var mu sync.Mutex
	display := "DISPLAY=:99"
	l := New(Config{Binary: exe, Socket: "/run/test/pathgrant.sock", Fallback: &recorder{}, RestartDelay: 50 * time.Millisecond,
		Environ: func() []string { mu.Lock(); defer mu.Unlock(); return []string{display, "HOME=" + home} },
		Log:     slog.New(slog.NewTextHandler(io.Discard, nil))})
	t.Cleanup(l.Stop)
	if err := l.Start(""); err != nil {
		t.Fatal(err)
	}
	first := l.Running()
	waitFor(t, "the app ready", func() bool { l.mu.Lock(); defer l.mu.Unlock(); return l.app != nil && l.app.ready })
	mu.Lock()
	display = "DISPLAY=:66" // the attacker's
	mu.Unlock()
	if err := syscall.Kill(first, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	var env []string
	waitFor(t, "the second app's environment", func() bool {
		for _, e := range readLog(t, filepath.Join(home, "app.log")) {
			if e.Pid != first && e.Environ != nil {
				env = e.Environ
				return true
			}
		}
		return false
	})
	if !slices.Contains(env, "DISPLAY=:99") || slices.Contains(env, "DISPLAY=:66") {
		t.Errorf("the app started again has %v, want DISPLAY=:99 kept", env)
	}
}

// TestAppEnvironmentIsChosen: the app gets the display, the locale and
// the socket, never what loads code or what a caller set.
func TestAppEnvironmentIsChosen(t *testing.T) {
	l, _, logPath := fakeLink(t, false, "LD_PRELOAD=/tmp/evil.so", "GTK_MODULES=evil", "GIO_EXTRA_MODULES=/tmp",
		"PATH=/tmp/evil:/usr/bin", "LC_ALL=C.UTF-8", "PATHGRANT_SESSION=s1", "BASH_ENV=/tmp/evil")
	if err := l.Start(""); err != nil {
		t.Fatal(err)
	}
	var env []string
	waitFor(t, "the app's environment", func() bool {
		for _, e := range readLog(t, logPath) {
			if e.Environ != nil {
				env = e.Environ
				return true
			}
		}
		return false
	})
	for _, want := range []string{"DISPLAY=:99", "LC_ALL=C.UTF-8", "PATH=" + appPath, "PATHGRANT_SOCKET=/run/test/pathgrant.sock"} {
		if !slices.Contains(env, want) {
			t.Errorf("the app's environment lacks %s: %v", want, env)
		}
	}
	for _, kv := range env {
		for _, bad := range []string{"LD_", "GTK_", "GIO_", "PATHGRANT_SESSION", "BASH_ENV", "/tmp/evil"} {
			if strings.Contains(kv, bad) {
				t.Errorf("the app's environment has %s", kv)
			}
		}
	}
}

// TestNoDisplayNoApp: without a display nothing starts, and the error is
// engine.ErrNoWindow, which the raise route turns into "no window".
func TestNoDisplayNoApp(t *testing.T) {
	tests := []struct {
		name   string
		env    []string
		binary string
	}{
		{"no display", []string{"HOME=/home/u"}, "/bin/true"},
		{"no app binary", []string{"DISPLAY=:0"}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := New(Config{Binary: tc.binary, Fallback: &recorder{}, Environ: func() []string { return tc.env },
				Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
			if err := l.Start(""); !errors.Is(err, engine.ErrNoWindow) {
				t.Errorf("Start: %v, want ErrNoWindow", err)
			}
			if l.Running() != 0 {
				t.Error("an app runs")
			}
		})
	}
}

// TestNotLinked: a process the daemon did not start has no link, and
// says so in one line.
func TestNotLinked(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "app", "--link")
	cmd.Env = []string{"HOME=" + t.TempDir()}
	out, err := cmd.CombinedOutput()
	if exitStatus(err) != 1 || !strings.Contains(string(out), errNotStarted.Error()) {
		t.Errorf("an app with no link: %v, %q; want exit 1 and %q", err, out, errNotStarted)
	}
}
