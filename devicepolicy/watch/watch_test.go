package watch

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"pathgrant/devicepolicy"
)

var testEnv = devicepolicy.Env{Home: "/home/u", Downloads: "/home/u/Downloads"}

// syncBuffer is a log destination the watcher goroutine writes while the
// test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestWatch: a change is picked up; a bad file keeps the last good policy
// and says why; a fixed file is picked up again.
func TestWatch(t *testing.T) {
	dir := t.TempDir()
	write := func(data string) {
		t.Helper()
		// Written aside and renamed in, as editors do.
		if err := os.WriteFile(dir+"/.tmp", []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(dir+"/.tmp", dir+"/"+devicepolicy.TOMLName); err != nil {
			t.Fatal(err)
		}
	}
	write("retention_days = 10\n")
	var logs syncBuffer
	changed := make(chan devicepolicy.Policy, 8)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w, err := Watch(ctx, dir, testEnv, slog.New(slog.NewTextHandler(&logs, nil)), func(p devicepolicy.Policy) { changed <- p })
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name, data string
		want       int    // retention days in force after the change
		log        string // in the log
	}{
		{"reload on change", "retention_days = 20\n", 20, "reloaded"},
		{"bad file keeps the old", "retention_days = 30\nssh_agent = true\ntoolchains = [\"~/.ssh\"]\n", 20, "never allowed"},
		{"fixed file", "retention_days = 40\n", 40, "reloaded"},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			write(s.data)
			waitFor(t, func() bool { return strings.Contains(logs.String(), s.log) && w.Policy().RetentionDays == s.want })
			if p := w.Policy(); p.SSHAgent {
				t.Errorf("the refused file's ssh_agent leaked into the policy: %+v", p)
			}
		})
	}
	// The policy in force is set before onChange runs: wait for the call.
	waitFor(t, func() bool { return len(changed) >= 2 })
	if n := len(changed); n != 2 {
		t.Errorf("onChange called %d times, want 2 (the good changes)", n)
	}
}

func waitFor(t *testing.T, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
