package ipc

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"pathgrant/apiclient"
	"pathgrant/engine"
	"pathgrant/grants"
	"pathgrant/guard"
	"pathgrant/wire"
)

// testEnv is a real daemon on a real socket over a real store, in a
// temporary home with a workspace and a Downloads folder.
type testEnv struct {
	t                    testing.TB
	home, work, dl, sock string
	store                *grants.Store
	srv                  *Server
	approver             *recordingApprover
	role                 atomic.Pointer[[]engine.LineageEntry] // the lineage the next request comes from
	client               *apiclient.Client
}

var (
	agentLineage = []engine.LineageEntry{{Proc: engine.Proc{PID: 4001, Start: 1}, Comm: "pathgrant-hook"}, {Proc: engine.Proc{PID: 4000, Start: 1}, Comm: "claude"}}
	userLineage  = []engine.LineageEntry{{Proc: engine.Proc{PID: 5001, Start: 1}, Comm: "pathgrant"}, {Proc: engine.Proc{PID: 5000, Start: 1}, Comm: "bash"}}
)

func newTestEnv(t testing.TB, mutate ...func(*Config)) *testEnv {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	e := &testEnv{t: t, home: root + "/home", approver: &recordingApprover{}}
	e.work, e.dl, e.sock = e.home+"/work", e.home+"/Downloads", root+"/run/pathgrant.sock"
	for _, f := range []string{e.work + "/main.go", e.dl + "/report.csv", e.dl + "/other.csv"} {
		mustWrite(t, f, "a,b\n")
	}
	e.store, err = grants.Open(root+"/state/pathgrant.db", grants.Options{MachineID: "test-machine", NoWatch: true, SweepEvery: time.Minute, // as the daemon sweeps
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	e.role.Store(&agentLineage)
	cfg := Config{
		Store: e.store, Home: e.home, Approver: e.approver,
		Device:    guard.DevicePolicy{EligibleReadOnly: []string{e.dl}, Protected: []string{root + "/state", root + "/run"}},
		Logger:    slog.New(slog.NewTextHandler(io.Discard, nil)),
		Lineage:   func(int32) ([]engine.LineageEntry, error) { return *e.role.Load(), nil },
		ProcAlive: func(engine.Proc) bool { return true }, // the played lineages are made up: they never exit
	}
	for _, m := range mutate {
		m(&cfg)
	}
	e.srv = New(cfg)
	ln, err := Listen(e.sock)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- e.srv.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := e.srv.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
		e.store.Close()
	})
	e.client = apiclient.New(e.sock)
	return e
}

// as runs the next requests of e.client from the given process lineage.
// The daemon reads a peer's lineage once per connection, so the client's
// open connections are closed: the next request is a new peer.
func (e *testEnv) as(l []engine.LineageEntry) {
	e.role.Store(&l)
	e.client.CloseIdle()
}

// register registers an interactive session over the socket, from the
// person's lineage (a process under an agent may only register children
// of the agent's session), then plays the lineage it found again.
func (e *testEnv) register(req wire.SessionRequest) wire.SessionResponse {
	e.t.Helper()
	if req.Cwd == "" {
		req.Cwd, req.Workspace = e.work, []string{e.work}
	}
	was := *e.role.Load()
	e.as(userLineage)
	defer e.as(was)
	resp, err := e.client.Register(context.Background(), req)
	if err != nil {
		e.t.Fatalf("register: %v", err)
	}
	return resp
}

// clientFor returns a client that presents the session's id and token.
func (e *testEnv) clientFor(s wire.SessionResponse) *apiclient.Client {
	c := apiclient.New(e.sock)
	c.Session, c.Token = s.ID, s.Token
	return c
}

func mustWrite(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// recordingApprover counts what the daemon asked it to show, and keeps
// each request's approval codes as the person reads them in the prompt.
type recordingApprover struct {
	shown, withdrawn atomic.Int64
	last             atomic.Pointer[wire.Request]
	codes            sync.Map // request id -> []wire.ChoiceCode
}

func (a *recordingApprover) Show(r wire.Request, codes []wire.ChoiceCode) {
	a.codes.Store(r.ID, codes)
	a.shown.Add(1)
	a.last.Store(&r)
}
func (a *recordingApprover) Withdraw(string) { a.withdrawn.Add(1) }

// code is the approval code the prompt showed for request id beside its
// first choice: approving once what was suggested.
func (e *testEnv) code(id string) string {
	e.t.Helper()
	return e.codeFor(id, "")
}

// codeFitting is the code the person types for dec on request id: that
// of the offered choice dec stays within (no kind is the suggested one,
// the first choice's); the first code when none fits, which the daemon
// then refuses.
func (e *testEnv) codeFitting(id string, dec wire.Decision) string {
	e.t.Helper()
	e.codeFor(id, "") // waits until the codes are shown
	c, _ := e.approver.codes.Load(id)
	codes := c.([]wire.ChoiceCode)
	kind := dec.Kind
	if kind == "" {
		kind = codes[0].Kind
	}
	lasting, _ := time.ParseDuration(dec.For)
	for _, cc := range codes {
		if cc.Covers(dec.Scope, kind, lasting) {
			return cc.Code
		}
	}
	return codes[0].Code
}

// codeFor is the approval code the prompt showed for request id beside
// the choice named key (wire.Choice.Key); "" is the first.
func (e *testEnv) codeFor(id, key string) string {
	e.t.Helper()
	// The daemon shows the prompt just after it queues the request, so a
	// request can be pending a moment before its code is shown.
	deadline := time.Now().Add(5 * time.Second)
	for {
		if c, ok := e.approver.codes.Load(id); ok {
			for _, cc := range c.([]wire.ChoiceCode) {
				if key == "" || cc.Key() == key {
					return cc.Code
				}
			}
			e.t.Fatalf("no choice %q offered for request %s", key, id)
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("no approval code was shown for request %s", id)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func statusOf(err error) int {
	var ae *wire.DaemonError
	if errors.As(err, &ae) {
		return ae.Status
	}
	return 0
}

// waitPending polls until n requests are pending.
func (e *testEnv) waitPending(n int) []wire.Request {
	e.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if p := e.srv.Engine().Pending(); len(p) == n {
			return p
		}
		time.Sleep(5 * time.Millisecond)
	}
	e.t.Fatalf("pending requests never reached %d: %+v", n, e.srv.Engine().Pending())
	return nil
}

// testID is a fresh random session id, as the daemon mints them.
func testID() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}
