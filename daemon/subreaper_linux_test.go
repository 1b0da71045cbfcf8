package daemon

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// startReaper makes the test process a subreaper for the test.
func startReaper(t *testing.T) *Subreaper {
	t.Helper()
	r, err := StartSubreaper(quiet)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Stop)
	return r
}

// TestSubreaperKeepsExecChildren: while orphans are reaped all around
// them, children started through os/exec still report their own exit
// status to their Wait, never stolen (no ECHILD).
func TestSubreaperKeepsExecChildren(t *testing.T) {
	startReaper(t)
	tests := []struct {
		script string
		code   int // -1: killed by a signal
	}{
		{"exit 0", 0},
		{"exit 7", 7},
		{"sleep 0.05; exit 3", 3},
		{"kill -9 $$", -1},
		{"sleep 0.02 >/dev/null & exit 5", 5}, // leaves an orphan behind
	}
	var wg sync.WaitGroup
	for round := range 8 {
		for _, tt := range tests {
			wg.Go(func() {
				cmd := exec.Command("/bin/sh", "-c", tt.script)
				if err := cmd.Start(); err != nil {
					t.Error(err)
					return
				}
				if round%2 == 1 {
					// Wait only long after the child is a zombie and
					// the reaper has had its SIGCHLD.
					awaitZombie(t, cmd.Process.Pid)
					time.Sleep(100 * time.Millisecond)
				}
				err := cmd.Wait()
				var ee *exec.ExitError
				if !errors.As(err, &ee) && err != nil {
					t.Errorf("round %d, %q: %v (stolen by the reaper?)", round, tt.script, err)
					return
				}
				if code := exitCode(err); code != tt.code {
					t.Errorf("round %d, %q: exit %d, want %d", round, tt.script, code, tt.code)
				}
			})
		}
	}
	wg.Wait()
}

// awaitZombie waits until pid has exited and waits to be reaped.
func awaitZombie(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		s := stat(pid)
		if f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:]); len(f) > 0 && f[0] == "Z" {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Errorf("child %d never exited", pid)
}

func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws := ee.Sys().(syscall.WaitStatus); ws.Signaled() {
			return -1
		}
		return ee.ExitCode()
	}
	return 0
}

// TestSubreaperReapsOrphans: a process left behind by its parent, in the
// background or detached into its own session, is reparented to the
// subreaper (so it stays below it) and, once it exits, reaped: no zombie
// is left.
func TestSubreaperReapsOrphans(t *testing.T) {
	r := startReaper(t)
	dir := t.TempDir()
	tests := []struct{ name, script string }{
		{"background", `sleep 0.5 >/dev/null 2>&1 & echo $! > "$0"`},
		{"setsid -f", `setsid -f /bin/sh -c 'echo $$ > "$0"; exec sleep 0.5' "$0" >/dev/null 2>&1`},
		{"double fork", `( /bin/sh -c 'echo $$ > "$0"; exec sleep 0.5' "$0" & ) >/dev/null 2>&1`},
	}
	before := r.Reaped()
	var pids []int
	for i, tt := range tests {
		file := filepath.Join(dir, strconv.Itoa(i))
		if out, err := exec.Command("/bin/sh", "-c", tt.script, file).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v %s", tt.name, err, out)
		}
		pid := waitPidFile(t, file)
		if ppid := parentOf(pid); ppid != os.Getpid() {
			t.Errorf("%s: orphan %d has parent %d, want the subreaper %d", tt.name, pid, ppid, os.Getpid())
		}
		pids = append(pids, pid)
	}
	deadline := time.Now().Add(10 * time.Second)
	for _, pid := range pids {
		for exists(pid) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if exists(pid) {
			t.Errorf("orphan %d not reaped: %s", pid, stat(pid))
		}
	}
	if z := zombieChildren(); len(z) != 0 {
		t.Errorf("zombies left: %v", z)
	}
	if got := r.Reaped() - before; got < int64(len(pids)) {
		t.Errorf("reaped %d, want at least %d", got, len(pids))
	}
}

func waitPidFile(t *testing.T, file string) int {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if data, err := os.ReadFile(file); err == nil && bytes.HasSuffix(data, []byte("\n")) {
			pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
			if err != nil {
				t.Fatal(err)
			}
			return pid
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no pid in %s", file)
	return 0
}

func stat(pid int) string {
	data, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	return string(data)
}

func exists(pid int) bool {
	_, err := os.Stat(fmt.Sprintf("/proc/%d", pid))
	return err == nil
}

func parentOf(pid int) int {
	s := stat(pid)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 2 {
		return 0
	}
	ppid, _ := strconv.Atoi(fields[1])
	return ppid
}

// Reaped is how many orphans r has reaped.
func (r *Subreaper) Reaped() int64 { return r.reaped.Load() }
