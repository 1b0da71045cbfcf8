//go:build linux

package heldfs_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"pathgrant/sandbox/heldfs"
	"pathgrant/wire"
)

// openFDs counts this process's (the daemon's) open descriptors.
func openFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

// TestAttackGrantedOpensShareOneDescriptor: a file the command's grants
// cover is served without asking, so nothing but the handle bounds limits
// its opens: thousands of opens of it held at once cost the daemon one
// descriptor, and another command's served open works meanwhile.
func TestAttackGrantedOpensShareOneDescriptor(t *testing.T) {
	w := newWorld(t, allow)
	file := filepath.Join(w.root, "granted.txt")
	write(t, file, "g")
	attacker := w.granted(t, "t2", wire.Scope{Op: wire.OpRead, Path: file})
	before := openFDs(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	script := `python3 -c 'import os, sys, time
fds = [os.open(sys.argv[1], os.O_RDONLY) for _ in range(3000)]
print("holding", len(fds), flush=True)
time.sleep(3)' ` + file
	done := make(chan string, 1)
	go func() { out, _ := attacker.sandbox(ctx, script); done <- out }()
	time.Sleep(1500 * time.Millisecond)
	during := openFDs(t)
	out, _ := w.sandbox(context.Background(), "cat "+file)
	held := <-done
	if !strings.Contains(held, "holding 3000") {
		t.Fatalf("the attacker did not hold its opens: %s\nsaid: %s", held, attacker.said())
	}
	if during-before > 8 {
		t.Errorf("3000 opens of one granted file cost the daemon %d descriptors", during-before)
	}
	if !strings.Contains(out, "g") {
		t.Errorf("another command's served open failed meanwhile: %q", out)
	}
}

// TestAttackDistinctOpensBounded: one command holding more distinct files
// open than its bound gets EMFILE past it, with one line saying why,
// and the daemon's descriptors stay within the bound.
func TestAttackDistinctOpensBounded(t *testing.T) {
	w := newWorld(t, allow)
	for i := range 1100 {
		write(t, filepath.Join(w.root, fmt.Sprintf("f%04d", i)), "x")
	}
	attacker := w.granted(t, "t2", wire.Scope{Op: wire.OpRead, Path: w.root, Kind: wire.KindFolder})
	before := openFDs(t)
	out, _ := attacker.sandbox(context.Background(), `python3 -c 'import os, sys
fds = []
try:
    for i in range(1100):
        fds.append(os.open(os.path.join(sys.argv[1], "f%04d" % i), os.O_RDONLY))
except OSError as e:
    print("stopped at", len(fds), e.errno)
print("peak", len(os.listdir("/proc/self/fd")))' `+w.root)
	if !strings.Contains(out, "stopped at 1024 24") {
		t.Errorf("no EMFILE at the per-command bound: %s", out)
	}
	if !strings.Contains(attacker.said(), "files open through pathgrant already") {
		t.Errorf("no line for the bound: %q", attacker.said())
	}
	after := openFDs(t)
	for deadline := time.Now().Add(5 * time.Second); after-before > 4 && time.Now().Before(deadline); after = openFDs(t) {
		time.Sleep(50 * time.Millisecond) // the kernel releases a dead command's files after it
	}
	if after-before > 4 {
		t.Errorf("the daemon kept %d descriptors after the command ended", after-before)
	}
}

// granted registers another command under token over w's root, whose
// grants are granted, and returns it as a world of its own.
func (w *world) granted(t *testing.T, token string, granted ...wire.Scope) *world {
	t.Helper()
	self, err := heldfs.Self()
	if err != nil {
		t.Fatal(err)
	}
	bwrap, err := filepath.EvalSymlinks("/usr/bin/bwrap")
	if err != nil {
		t.Fatal(err)
	}
	o := &world{srv: w.srv, root: w.root, token: token, ask: w.ask}
	if err := w.srv.Register(token, heldfs.Command{Roots: []string{w.root}, Ask: w.ask, Holder: self, Bwrap: bwrap, Granted: granted,
		Say: func(path, line string) { o.mu.Lock(); o.lines = append(o.lines, line); o.mu.Unlock() }}); err != nil {
		t.Fatal(err)
	}
	return o
}
