package cli

import (
	"errors"
	"net/http"
	"os"
	"os/exec"
	"pathgrant/wire"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// reportPidAndWait writes the session, token and the command's own pid to
// $LAUNCH_OUT, then waits to be killed.
const reportPidAndWait = `printf '%s\n%s\n%s\n' "$PATHGRANT_SESSION" "$PATHGRANT_TOKEN" "$$" > "$LAUNCH_OUT.tmp" &&
mv "$LAUNCH_OUT.tmp" "$LAUNCH_OUT"; while :; do sleep 0.05; done`

// sessionGone waits up to within for the session to answer 410.
func (e launchEnvT) sessionGone(t *testing.T, id, token string, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		_, err := e.policy(id, token)
		var ae *wire.DaemonError
		if errors.As(err, &ae) && ae.Status == http.StatusGone {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the session is still live %v after its command or launcher was killed (%v)", within, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestRunKilled: the session ends when the command is killed (the
// launcher ends it), and when `pathgrant run` itself is killed (the daemon
// sees the launcher it is bound to exit).
func TestRunKilled(t *testing.T) {
	tests := []struct {
		name string
		kill func(t *testing.T, launcher *exec.Cmd, commandPID int)
	}{
		{"command SIGKILL", func(t *testing.T, _ *exec.Cmd, pid int) {
			if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
		}},
		{"launcher SIGKILL", func(t *testing.T, launcher *exec.Cmd, pid int) {
			if err := launcher.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
		}},
	}
	bin := buildBinary(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newLaunchEnv(t)
			out := e.root + "/out"
			cmd := exec.Command(bin, "run", "--workspace", e.work, "--socket", e.sock, "--", "/bin/sh", "-c", reportPidAndWait)
			cmd.Dir = e.work
			cmd.Env = append(os.Environ(), "LAUNCH_OUT="+out, "PATHGRANT_SESSION=", "PATHGRANT_TOKEN=")
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			waited := make(chan struct{})
			go func() { _ = cmd.Wait(); close(waited) }()
			t.Cleanup(func() { _ = cmd.Process.Kill(); <-waited })
			id, token, pidText := waitReport(t, out)
			pid, err := strconv.Atoi(strings.TrimSpace(pidText))
			if err != nil {
				t.Fatalf("command pid %q", pidText)
			}
			if _, err := e.policy(id, token); err != nil {
				t.Fatalf("the session is not live while the command runs: %v", err)
			}
			tc.kill(t, cmd, pid)
			e.sessionGone(t, id, token, 3*time.Second)
		})
	}
}
