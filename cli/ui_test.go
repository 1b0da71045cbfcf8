package cli

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestNoDisplaySettings: the settings window cannot run headless; it says
// so in one line, naming the commands to use instead.
func TestNoDisplaySettings(t *testing.T) {
	t.Setenv("DISPLAY", "")
	t.Setenv("WAYLAND_DISPLAY", "")
	t.Setenv("SSH_CONNECTION", "10.0.0.2 52000 10.0.0.1 22") // no display on macOS either
	var stdout, stderr bytes.Buffer
	code := runUI("settings")(nil, &stdout, &stderr)
	if code != 1 || stdout.Len() != 0 || strings.Count(stderr.String(), "\n") != 1 ||
		!strings.Contains(stderr.String(), "no display") || !strings.Contains(stderr.String(), "pathgrant pending") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
}

var (
	uiOnce sync.Once
	uiErr  error
)

// buildUIBinary builds pathgrant-ui next to the pathgrant binary, where
// each finds the other. It links Fyne (cgo): minutes when the cache is cold.
func buildUIBinary(t testing.TB) (cli, ui string) {
	t.Helper()
	cli = buildBinary(t)
	ui = filepath.Join(filepath.Dir(cli), uiBinary)
	uiOnce.Do(func() {
		cmd := exec.Command("go", "build", "-o", ui, "pathgrant/cmd/pathgrant-ui")
		cmd.Env = append(os.Environ(), goCaches...)
		if out, err := cmd.CombinedOutput(); err != nil {
			uiErr = &buildError{err: err, out: string(out)}
		}
	})
	if uiErr != nil {
		t.Fatal(uiErr)
	}
	return cli, ui
}

// TestNoDisplayApp runs the app the ways a user starts it on a machine
// without a usable display: it never panics, says so in exactly one line,
// serves the headless daemon on the socket and store it was given, and
// stops cleanly on SIGTERM.
func TestNoDisplayApp(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binaries")
	}
	cli, _ := buildUIBinary(t)
	tests := []struct {
		name    string
		argv    func(sock, store string) []string
		display string
		line    string
	}{
		{"pathgrant", func(string, string) []string { return []string{cli} }, "", "pathgrant: no display"},
		{"pathgrant app with flags", func(sock, store string) []string {
			return []string{cli, "app", "--socket", sock, "--store", store}
		}, "", "pathgrant: no display"},
		{"pathgrant serve", func(sock, store string) []string {
			return []string{cli, "serve", "--socket", sock, "--store", store}
		}, "", "pathgrant: no display"},
		{"pathgrant serve, a display the app cannot open", func(sock, store string) []string {
			return []string{cli, "serve", "--socket", sock, "--store", store}
		}, ":9173", "pathgrant: cannot use the display :9173"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			testNoDisplayApp(t, tc.argv, tc.display, tc.line)
		})
	}
}

func testNoDisplayApp(t *testing.T, argv func(sock, store string) []string, display, line string) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	// With no flags the defaults apply: the runtime and state folders.
	sock, store := root+"/run/pathgrant.sock", root+"/state/pathgrant/pathgrant.db"
	if err := os.Mkdir(root+"/run", 0o700); err != nil {
		t.Fatal(err)
	}
	a := argv(sock, store)
	cmd := exec.Command(a[0], a[1:]...)
	cmd.Env = append(noDisplayEnv(os.Environ()), "HOME="+root+"/home", "XDG_RUNTIME_DIR="+root+"/run",
		"XDG_STATE_HOME="+root+"/state", "XDG_CONFIG_HOME=", "PATHGRANT_SOCKET=", "PATHGRANT_STORE=",
		"LANG=en_US.UTF-8", "LC_ALL=")
	if display != "" {
		cmd.Env = append(cmd.Env, "DISPLAY="+display)
	}
	logFile := createFile(t, root+"/app.log")
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	waitHealthy(t, sock, exited, logFile.Name())
	if display != "" { // the daemon started its app, which fails on the display
		deadline := time.Now().Add(10 * time.Second)
		for !strings.Contains(readFile(t, logFile.Name()), "the app cannot use the display") && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
	}
	if _, err := os.Stat(store); err != nil {
		t.Errorf("store: %v", err)
	}
	stopCleanly(t, cmd, exited, logFile.Name())
	if _, err := os.Stat(sock); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket after stop: %v, want it removed", err)
	}
	checkNoDisplayLog(t, readFile(t, logFile.Name()), line, display == "")
}

// stopCleanly sends SIGTERM and wants exit 0 within 10 s.
func stopCleanly(t *testing.T, cmd *exec.Cmd, exited <-chan error, logName string) {
	t.Helper()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("after SIGTERM: %v; log:\n%s", err, readFile(t, logName))
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("no exit within 10s of SIGTERM; log:\n%s", readFile(t, logName))
	}
}

// checkNoDisplayLog wants no panic, exactly one line of ours about the
// display, and (when no display was named at all) nothing else but the
// daemon's log records, which say how to decide from the CLI.
func checkNoDisplayLog(t *testing.T, log, line string, onlyOurs bool) {
	t.Helper()
	if strings.Contains(log, "panic") || strings.Contains(log, "goroutine ") {
		t.Errorf("output has a panic:\n%s", log)
	}
	var ours, other []string
	for _, l := range strings.Split(strings.TrimSpace(log), "\n") {
		switch {
		case strings.HasPrefix(l, "pathgrant:"):
			ours = append(ours, l)
		case !strings.HasPrefix(l, "time="):
			other = append(other, l)
		}
	}
	if len(ours) != 1 || !strings.HasPrefix(ours[0], line) ||
		!strings.Contains(ours[0], "pathgrant pending") || !strings.Contains(ours[0], "pathgrant approve ID --scope") {
		t.Errorf("want one line starting %q with the CLI commands; got %q in:\n%s", line, ours, log)
	}
	if onlyOurs && len(other) > 0 {
		t.Errorf("unexpected output lines %q in:\n%s", other, log)
	}
	if !strings.Contains(log, "pathgrant daemon ready (") || !strings.Contains(log, "msg=stopped") {
		t.Errorf("no daemon start and stop in:\n%s", log)
	}
	if !onlyOurs && !strings.Contains(log, "the app cannot use the display") {
		t.Errorf("the daemon does not say its app cannot use the display:\n%s", log)
	}
}

// TestUIAppNeedsTheDaemon: pathgrant-ui's app, started by anyone but the
// daemon (an agent's process among them), holds no link: it refuses in
// one line and starts nothing.
func TestUIAppNeedsTheDaemon(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binaries")
	}
	_, ui := buildUIBinary(t)
	for _, args := range [][]string{{"app"}, {"app", "--link"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			cmd := exec.Command(ui, args...)
			cmd.Env = append(os.Environ(), "DISPLAY=:9173")
			out, err := cmd.CombinedOutput()
			var ours []string // Fyne may warn about the locale as it loads
			for _, l := range strings.Split(string(out), "\n") {
				if strings.HasPrefix(l, "pathgrant") {
					ours = append(ours, l)
				}
			}
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 1 || len(ours) != 1 ||
				!strings.Contains(ours[0], "started by the") || !strings.Contains(ours[0], "'pathgrant app'") {
				t.Errorf("pathgrant-ui %v: %v, %q; want exit 1 and one line naming 'pathgrant app'", args, err, out)
			}
		})
	}
}

// noDisplayEnv is env without the variables that name a display.
func noDisplayEnv(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if !strings.HasPrefix(kv, "DISPLAY=") && !strings.HasPrefix(kv, "WAYLAND_DISPLAY=") {
			out = append(out, kv)
		}
	}
	return out
}

// TestSettingsArgs: settings says why it refuses an argument (the flag
// it does not know, an argument it takes none of), with its usage,
// before it looks for a display or the window's binary; -h is its usage.
func TestSettingsArgs(t *testing.T) {
	t.Setenv("DISPLAY", "")
	t.Setenv("WAYLAND_DISPLAY", "")
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string // in stdout
		stderr string // in stderr
	}{
		{"an unknown flag", []string{"--bogus"}, exitUsage, "", "pathgrant settings: flag provided but not defined: -bogus\n" + settingsUsage},
		{"an argument", []string{"grants"}, exitUsage, "", `pathgrant settings: unexpected argument "grants": settings takes none`},
		{"help", []string{"-h"}, exitOK, settingsUsage, ""},
		{"a socket: on to the display check", []string{"--socket", "/tmp/x.sock"}, exitFail, "", "no display"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := runSettings(tt.args, &stdout, &stderr)
			if code != tt.code || !strings.Contains(stdout.String(), tt.stdout) || !strings.Contains(stderr.String(), tt.stderr) ||
				tt.stderr == "" && stderr.Len() != 0 {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d, stdout with %q, stderr with %q",
					code, stdout.String(), stderr.String(), tt.code, tt.stdout, tt.stderr)
			}
		})
	}
}
