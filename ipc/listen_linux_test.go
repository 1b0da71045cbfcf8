package ipc

import (
	"os"
	"strings"
	"sync/atomic"
	"testing"
)

// TestListenLeavesTheUmask: opening the socket never changes the
// process's umask, which every other goroutine's files, folders and
// child processes take meanwhile (a daemon's tests, and a daemon's own
// work, run beside it). The umask is read from /proc as the whole
// process has it, the whole time sockets are opened and closed.
func TestListenLeavesTheUmask(t *testing.T) {
	want := umaskNow(t)
	var stop, seen atomic.Bool
	done := make(chan struct{})
	go func() {
		defer close(done)
		for !stop.Load() {
			if umaskNow(t) != want {
				seen.Store(true)
			}
		}
	}()
	dir := t.TempDir() + "/run"
	for range 200 {
		ln, err := Listen(dir + "/pathgrant.sock")
		if err != nil {
			t.Fatal(err)
		}
		ln.Close()
	}
	stop.Store(true)
	<-done
	if seen.Load() {
		t.Fatal("the umask changed while the socket was opened")
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("socket folder: %v %v, want 0700", fi, err)
	}
}

// umaskNow is the process's umask as /proc/self/status shows it.
func umaskNow(t *testing.T) string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Error(err)
		return ""
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "Umask:"); ok {
			return strings.TrimSpace(v)
		}
	}
	t.Error("no Umask line in /proc/self/status")
	return ""
}
