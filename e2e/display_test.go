package e2e

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// desktop is a headless X display with a session bus and a notification
// server, as a user's desktop has them.
type desktop struct {
	Display string // ":N"
	Bus     string // DBUS_SESSION_BUS_ADDRESS
	dir     string
}

// needTools skips the test, saying why, when the display tools are not
// installed (scripts/deps installs them; CI always has them).
func needTools(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed (scripts/deps installs it): %v", tool, err)
		}
	}
}

// startDesktop starts Xvfb on a free display and a dbus-run-session whose
// child starts dunst and waits; everything is stopped at cleanup.
func startDesktop(t *testing.T) *desktop {
	t.Helper()
	return startDesktopWith(t, "")
}

// startDesktopWith is startDesktop with dunstrc, when not empty, as
// dunst's configuration.
func startDesktopWith(t *testing.T, dunstrc string) *desktop {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end: runs in the full test step, not with -short")
	}
	needTools(t, "Xvfb", "dbus-run-session", "dunst", "dunstctl", "xdotool", "import")
	d := &desktop{dir: t.TempDir()}
	d.Display = startXvfb(t)
	busFile := filepath.Join(d.dir, "bus")
	dunst := "dunst"
	if dunstrc != "" {
		rc := filepath.Join(d.dir, "dunstrc")
		if err := os.WriteFile(rc, []byte(dunstrc), 0o600); err != nil {
			t.Fatal(err)
		}
		dunst = fmt.Sprintf("dunst -config %q", rc)
	}
	script := fmt.Sprintf(`echo "$DBUS_SESSION_BUS_ADDRESS" > %q; %s >%q 2>&1 & exec sleep 600`,
		busFile, dunst, filepath.Join(d.dir, "dunst.log"))
	cmd := exec.Command("dbus-run-session", "--", "sh", "-c", script)
	cmd.Env = append(os.Environ(), "DISPLAY="+d.Display)
	startGroup(t, cmd)
	d.Bus = waitFile(t, busFile)
	waitUntil(t, 10*time.Second, "dunst on the session bus", func() bool {
		return d.command("dunstctl", "is-paused").Run() == nil
	})
	return d
}

// startXvfb lets Xvfb pick a free display (-displayfd) and returns it.
func startXvfb(t *testing.T) string {
	t.Helper()
	return startXvfbScreen(t, "1280x800x24")
}

// startXvfbScreen is startXvfb with the screen's size and depth
// ("1366x768x24").
func startXvfbScreen(t *testing.T, screen string) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("Xvfb", "-displayfd", "3", "-screen", "0", screen, "-nolisten", "tcp")
	cmd.ExtraFiles = []*os.File{w}
	startGroup(t, cmd)
	w.Close()
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(r).ReadString('\n')
		line <- strings.TrimSpace(s)
	}()
	select {
	case n := <-line:
		if n == "" {
			t.Fatal("Xvfb did not report a display")
		}
		return ":" + n
	case <-time.After(15 * time.Second):
		t.Fatal("Xvfb did not start")
	}
	return ""
}

// startGroup starts cmd in its own process group and kills the whole group
// at cleanup, so nothing is left running.
func startGroup(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", cmd.Path, err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
	})
}

// command runs a tool against this desktop.
func (d *desktop) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), "DISPLAY="+d.Display, "DBUS_SESSION_BUS_ADDRESS="+d.Bus)
	return cmd
}

// output runs a tool with a timeout and returns its trimmed stdout.
func (d *desktop) output(t *testing.T, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := d.command(name, args...)
	cmd = exec.CommandContext(ctx, cmd.Path, cmd.Args[1:]...)
	cmd.Env = append(os.Environ(), "DISPLAY="+d.Display, "DBUS_SESSION_BUS_ADDRESS="+d.Bus)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	return strings.TrimSpace(string(out))
}

// screenshot saves the whole screen as a PNG artifact.
func (d *desktop) screenshot(t *testing.T, name string) string {
	t.Helper()
	path := filepath.Join(artifactDir(t), name)
	d.output(t, "import", "-window", "root", path)
	t.Logf("screenshot: %s", path)
	return path
}

// artifactDir is where screenshots go: $PATHGRANT_ARTIFACTS, else
// e2e/artifacts in the checkout.
func artifactDir(t *testing.T) string {
	dir := os.Getenv("PATHGRANT_ARTIFACTS")
	if dir == "" {
		dir = "artifacts"
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs(dir)
	return abs
}

func waitFile(t *testing.T, path string) string {
	t.Helper()
	var data []byte
	waitUntil(t, 10*time.Second, path, func() bool {
		b, err := os.ReadFile(path)
		data = b
		return err == nil && len(strings.TrimSpace(string(b))) > 0
	})
	return strings.TrimSpace(string(data))
}

func waitUntil(t *testing.T, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
