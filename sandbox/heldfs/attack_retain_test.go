//go:build linux

package heldfs_test

// Attack (liveness): the names a command looked up stay in the kernel's
// cache after it ended (until memory pressure, with no forget); the
// server must drop them at Unregister, or commands that walk a large
// Downloads would fill maxNodes for every later command.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"pathgrant/sandbox/heldfs"
)

func TestAttackEndedCommandKeepsNodes(t *testing.T) {
	w := newWorld(t, allow)
	for i := range 2000 {
		if err := os.WriteFile(filepath.Join(w.root, fmt.Sprintf("f%04d", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	base := heldfs.AttackNodeCount(w.srv)
	out, err := w.sandbox(context.Background(), "ls -l "+w.root+" | wc -l")
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	during := heldfs.AttackNodeCount(w.srv)
	w.srv.Unregister(w.token)
	time.Sleep(3 * time.Second)
	after := heldfs.AttackNodeCount(w.srv)
	t.Logf("nodes: before %d, after ls -l %d, 3s after the command ended and was unregistered %d", base, during, after)
	if after-base > 10 {
		t.Errorf("an ended, unregistered command left %d nodes in the table", after-base)
	}
}
