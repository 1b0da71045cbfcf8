package applink

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/rpc"
	"net/rpc/jsonrpc"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"pathgrant/apiclient"
	"pathgrant/engine"
	"pathgrant/grants"
	"pathgrant/guard"
	"pathgrant/ipc"
	"pathgrant/ipc/ipctest"
	"pathgrant/wire"
)

// TestAllowFromAuditOverTheLink is the whole of the audit's "Allow…": an
// agent's read of ~/Documents/spec.pdf (outside every eligible root) is
// refused and audited; the person, in the app, asks to allow that row
// (App.AskFromAudit), which raises a request in the inbox for the
// agent's session; the person allows it for the session (App.Decide), and
// the agent's retry of the same read is allowed. A key under ~/.ssh,
// asked for from settings (App.AskForPath), is refused with the reason.
func TestAllowFromAuditOverTheLink(t *testing.T) {
	home, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	work, spec := filepath.Join(home, "work"), filepath.Join(home, "Documents", "spec.pdf")
	for _, f := range []string{filepath.Join(work, "main.go"), spec} {
		if err := os.MkdirAll(filepath.Dir(f), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	rec := &recorder{}
	l := New(Config{Fallback: rec, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	st := ipctest.OpenStore(t, filepath.Join(t.TempDir(), "pathgrant.db"))
	agent := []engine.LineageEntry{{Proc: engine.Proc{PID: 4001, Start: 1}, Comm: "pathgrant-hook"}, {Proc: engine.Proc{PID: 4000, Start: 1}, Comm: "claude"}}
	srv := ipc.New(ipc.Config{Store: st, Home: home, Logger: ipctest.Quiet, Approver: l,
		Device:    guard.DevicePolicy{EligibleReadOnly: []string{filepath.Join(home, "Downloads")}},
		Lineage:   func(int32) ([]engine.LineageEntry, error) { return agent, nil },
		ProcAlive: func(engine.Proc) bool { return true }})
	l.Attach(srv.Engine(), st)
	sock := filepath.Join(t.TempDir(), "run", "pathgrant.sock") // a folder Listen makes 0700
	ipctest.Serve(t, srv, sock)
	a := linkedApp(t, l)

	ctx := context.Background()
	c := apiclient.New(sock)
	s, err := c.Register(ctx, wire.SessionRequest{Agent: "claude", Cwd: work, Workspace: []string{work}})
	if err != nil {
		t.Fatal(err)
	}
	c.Session, c.Token = s.ID, s.Token
	read := func() wire.Answer {
		t.Helper()
		ans, err := c.Check(ctx, wire.CheckRequest{Tool: "Read", Op: guard.OpRead, Path: spec})
		if err != nil {
			t.Fatal(err)
		}
		return ans
	}
	if ans := read(); ans.Decision != guard.Deny || ans.Pending != "" {
		t.Fatalf("the first read: %+v; want refused, nothing asked", ans)
	}
	recs, err := a.Audit(grants.AuditFilter{Session: s.ID, Kind: grants.KindRefuse})
	if err != nil || len(recs) != 1 || recs[0].Path != spec {
		t.Fatalf("the refused row: %+v, %v", recs, err)
	}
	r, err := a.AskFromAudit(strconv.FormatUint(recs[0].Seq, 10))
	if err != nil {
		t.Fatalf("AskFromAudit: %v", err)
	}
	if r.Session != s.ID || r.Path != spec || r.State != wire.StatePending || r.Asked != wire.AskedAudit {
		t.Fatalf("the request raised: %+v", r)
	}
	if ps, err := a.Pending(); err != nil || len(ps) != 1 || ps[0].ID != r.ID {
		t.Fatalf("pending: %+v, %v; want the request", ps, err)
	}
	if err := a.Decide(r.ID, wire.Decision{Scope: "session"}); err != nil {
		t.Fatalf("decide: %v", err)
	}
	if ans := read(); ans.Decision != guard.Allow {
		t.Fatalf("the retry: %+v; want allowed", ans)
	}
	if _, err := a.AskForPath(guard.OpRead, filepath.Join(home, ".ssh", "id_rsa")); err == nil {
		t.Fatal("a request for a key under ~/.ssh was raised")
	}
}

// linkedApp is an App whose calls reach l's service over an in-process
// pipe (calls, on an engine the test already attached).
func linkedApp(t *testing.T, l *Link) *App {
	t.Helper()
	mine, theirs := net.Pipe()
	rs := rpc.NewServer()
	if err := rs.RegisterName("Daemon", &service{link: l, run: &running{}}); err != nil {
		t.Fatal(err)
	}
	go rs.ServeCodec(jsonrpc.NewServerCodec(theirs))
	a := &App{events: io.NopCloser(nil), calls: jsonrpc.NewClient(mine)}
	t.Cleanup(func() { a.calls.Close() })
	return a
}
