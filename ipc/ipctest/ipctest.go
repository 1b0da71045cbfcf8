// Package ipctest runs a real pathgrant daemon for tests in other
// packages: a real store, a real socket, shut down when the test ends.
package ipctest

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"pathgrant/engine"
	"pathgrant/grants"
	"pathgrant/ipc"
	"pathgrant/wire"
)

// Quiet is a logger that discards everything.
var Quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// OpenStore opens a store at path with a fixed machine identity and no
// watcher, closed when the test ends.
func OpenStore(t testing.TB, path string) *grants.Store {
	t.Helper()
	st, err := grants.Open(path, grants.Options{MachineID: "test-machine", NoWatch: true, Logger: Quiet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// Serve runs srv on a socket at sock until the test ends, then shuts it
// down and reports a shutdown or serve error as a test error.
func Serve(t testing.TB, srv *ipc.Server, sock string) {
	t.Helper()
	ln, err := ipc.Listen(sock)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
}

// Person reads approval codes the way the person at a headless daemon
// does: from the daemon's log line for each request. Its Approver writes
// that line (as `pathgrant serve --headless` does) into a log only the
// test reads, and Code finds a request's code there, nowhere else.
type Person struct {
	mu  sync.Mutex
	log bytes.Buffer
}

// Approver returns an engine.Approver that logs each new request with its
// code to p's log.
func (p *Person) Approver() engine.Approver {
	return personLog{p: p, log: slog.New(slog.NewTextHandler(p, nil))}
}

// Write appends to the log; it is the approver's log handler's output.
func (p *Person) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.log.Write(b)
}

// Log is everything logged so far.
func (p *Person) Log() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.log.String()
}

// Code waits up to 5 s for the log line of request id and returns the
// first code on it, that of approving once what was suggested (the file,
// or the suggested folder); the test fails when there is none.
func (p *Person) Code(t testing.TB, id string) string {
	t.Helper()
	return LogCode(t, p.Log, id, "")
}

// CodeFor is Code for the choice named key (wire.Choice.Key: "session",
// "device+folder", "session+1h").
func (p *Person) CodeFor(t testing.TB, id, key string) string {
	t.Helper()
	return LogCode(t, p.Log, id, key)
}

// LogCode waits up to 5 s for a daemon's log (read by log, e.g. the
// file a `pathgrant serve --headless` writes) to carry the line of
// request id, and returns the code of the choice named key on it (""
// the first, approving once what was suggested); the test fails when
// there is none.
func LogCode(t testing.TB, log func() string, id, key string) string {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		text := log()
		if code := CodeFromLog(text, id, key); code != "" {
			return code
		}
		if time.Now().After(deadline) {
			t.Fatalf("no approval code for %q logged for request %s:\n%s", key, id, text)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// CodeFromLog returns the code of the choice named key (the first when
// key is "") among the codes logged (codes="key=CODE …") on the line of
// request id (id=…) in a daemon's log, "" when there is none.
func CodeFromLog(log, id, key string) string {
	for _, line := range strings.Split(log, "\n") {
		if !strings.Contains(line, " id="+id+" ") {
			continue
		}
		m := logCodes.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		for _, kc := range strings.Fields(strings.Trim(m[1], `"`)) {
			k, code, _ := strings.Cut(kc, "=")
			if key == "" || k == key {
				return code
			}
		}
	}
	return ""
}

var logCodes = regexp.MustCompile(`\bcodes=("[^"]*"|\S+)`)

// personLog is the headless daemon's approval log line.
type personLog struct {
	p   *Person
	log *slog.Logger
}

func (l personLog) Show(r wire.Request, codes []wire.ChoiceCode) {
	l.log.Info("approval requested", "id", r.ID, "session", r.Session, "op", r.Op, "path", r.Path, "codes", wire.CodesText(codes))
}

func (l personLog) Withdraw(id string) { l.log.Info("approval request closed", "id", id) }
