package grants

import (
	"bytes"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"pathgrant/guard"

	bolt "go.etcd.io/bbolt"
)

// testClock is a settable clock owned by one test.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *testClock {
	return &testClock{t: time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)}
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// env is one test's store, clock and scratch folder.
type env struct {
	t     *testing.T
	s     *Store
	path  string
	clock *testClock
	dir   string // canonical scratch folder for granted files
	logs  *bytes.Buffer
}

// newEnv opens a fresh store; tweak adjusts the options first.
func newEnv(t *testing.T, tweak func(*Options)) *env {
	t.Helper()
	e := &env{t: t, clock: newClock(), logs: new(bytes.Buffer)}
	e.path = filepath.Join(t.TempDir(), "state", "pathgrant.db")
	e.dir = canonicalTempDir(t)
	e.s = e.open(tweak)
	return e
}

func (e *env) options(tweak func(*Options)) Options {
	o := Options{
		MachineID: "machine-a",
		Now:       e.clock.Now,
		NoWatch:   true,
		Logger:    slog.New(slog.NewTextHandler(syncWriter{e.logs, &sync.Mutex{}}, nil)),
	}
	if tweak != nil {
		tweak(&o)
	}
	return o
}

func (e *env) open(tweak func(*Options)) *Store {
	e.t.Helper()
	s, err := Open(e.path, e.options(tweak))
	if err != nil {
		e.t.Fatalf("Open: %v", err)
	}
	e.t.Cleanup(func() { _ = s.Close() })
	return s
}

// reopen closes the store and opens it again with the given tweak.
func (e *env) reopen(tweak func(*Options)) {
	e.t.Helper()
	if err := e.s.Close(); err != nil {
		e.t.Fatalf("Close: %v", err)
	}
	e.s = e.open(tweak)
}

type syncWriter struct {
	b  *bytes.Buffer
	mu *sync.Mutex
}

func (w syncWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func canonicalTempDir(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// file creates a file under the scratch folder and returns its path.
func (e *env) file(name string) string {
	e.t.Helper()
	p := filepath.Join(e.dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("data "+name), 0o600); err != nil {
		e.t.Fatal(err)
	}
	return p
}

// folder creates a folder under the scratch folder.
func (e *env) folder(name string) string {
	e.t.Helper()
	p := filepath.Join(e.dir, name)
	if err := os.MkdirAll(p, 0o700); err != nil {
		e.t.Fatal(err)
	}
	return p
}

func (e *env) session(id string) {
	e.t.Helper()
	if _, err := e.s.StartSession(Session{ID: id, Agent: "claude", Workflow: "wf"}); err != nil {
		e.t.Fatalf("StartSession(%s): %v", id, err)
	}
}

// put makes a read grant of scope on path in session s1.
func (e *env) put(scope Scope, path string, kind guard.GrantKind) Grant {
	e.t.Helper()
	g, err := e.s.Put(NewGrant{Scope: scope, Op: guard.OpRead, Path: path, Kind: kind,
		Session: "s1", Agent: "claude", Workflow: "wf", Tool: "Read", RequestID: "r1"})
	if err != nil {
		e.t.Fatalf("Put(%s %s): %v", scope, path, err)
	}
	return g
}

func (e *env) get(id string) Grant {
	e.t.Helper()
	g, err := e.s.Get(id)
	if err != nil {
		e.t.Fatalf("Get(%s): %v", id, err)
	}
	return g
}

func (e *env) audit() []Record {
	e.t.Helper()
	rs, err := e.s.AuditRecords(AuditFilter{})
	if err != nil {
		e.t.Fatalf("AuditRecords: %v", err)
	}
	return rs
}

// kindsSince returns the kinds of the records after the first n.
func (e *env) kindsSince(n int) []Kind {
	e.t.Helper()
	rs := e.audit()
	var ks []Kind
	for _, r := range rs[n:] {
		ks = append(ks, r.Kind)
	}
	return ks
}

func (e *env) count(kind Kind) int {
	n := 0
	for _, r := range e.audit() {
		if r.Kind == kind {
			n++
		}
	}
	return n
}

// waitFor polls cond for up to 5 s; the watcher works asynchronously.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// loadSession returns the session with the given id.
func (s *Store) loadSession(id string) (Session, error) {
	var sess Session
	err := s.view(func(tx *bolt.Tx) (err error) {
		sess, err = getSession(tx, id)
		return err
	})
	if err != nil {
		return Session{}, fmt.Errorf("get session %s: %w", id, err)
	}
	return sess, nil
}

// watched reports the paths currently watched.
func (w *watcher) watched() map[string]int {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make(map[string]int, len(w.refs))
	for p, n := range w.refs {
		out[p] = n
	}
	return out
}
