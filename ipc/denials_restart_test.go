package ipc

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"pathgrant/apiclient"
	"pathgrant/engine"
	"pathgrant/grants"
	"pathgrant/guard"
	"pathgrant/wire"
)

// TestDenialsSurviveDaemonRestart: over the socket, the person denies one
// read for the session and another on this device; a daemon started
// again on the same store file denies both to the session that carries
// on, at once and with the words it was told, and lists both; the device
// denial alone to a new session.
func TestDenialsSurviveDaemonRestart(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home := root + "/home"
	work, dl := home+"/work", home+"/Downloads"
	bySession, byDevice := dl+"/a.csv", dl+"/b.csv"
	for _, f := range []string{work + "/main.go", bySession, byDevice} {
		mustWrite(t, f, "a,b\n")
	}
	var role atomic.Pointer[[]engine.LineageEntry]
	role.Store(&userLineage)
	sock := root + "/run/pathgrant.sock"
	// daemon runs one daemon on the store for the length of run.
	daemon := func(name string, run func(t *testing.T)) {
		t.Run(name, func(t *testing.T) {
			st, err := grants.Open(root+"/state/pathgrant.db", grants.Options{MachineID: "test-machine", NoWatch: true, Logger: quiet})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			srv := New(Config{Store: st, Home: home, Logger: quiet,
				Device:    guard.DevicePolicy{EligibleReadOnly: []string{dl}, Protected: []string{root + "/state", root + "/run"}},
				Lineage:   func(int32) ([]engine.LineageEntry, error) { return *role.Load(), nil },
				ProcAlive: func(engine.Proc) bool { return true }})
			ln, err := Listen(sock)
			if err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- srv.Serve(ln) }()
			defer func() {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer cancel()
				if err := srv.Shutdown(ctx); err != nil {
					t.Errorf("shutdown: %v", err)
				}
				if err := <-done; err != nil {
					t.Errorf("serve: %v", err)
				}
			}()
			run(t)
		})
	}
	// as is a new client (a new connection: a new peer) from lineage l.
	as := func(l []engine.LineageEntry, s wire.SessionResponse) *apiclient.Client {
		role.Store(&l)
		c := apiclient.New(sock)
		c.Session, c.Token = s.ID, s.Token
		return c
	}
	read := func(t *testing.T, s wire.SessionResponse, path string) wire.Answer {
		t.Helper()
		ans, err := as(agentLineage, s).Check(context.Background(), wire.CheckRequest{Op: guard.OpRead, Path: path})
		if err != nil {
			t.Fatalf("check %s: %v", path, err)
		}
		return ans
	}
	ctx := context.Background()
	var sess wire.SessionResponse
	daemon("before", func(t *testing.T) {
		var err error
		if sess, err = as(userLineage, wire.SessionResponse{}).Register(ctx, wire.SessionRequest{Agent: "claude", Cwd: work, Workspace: []string{work}}); err != nil {
			t.Fatal(err)
		}
		for _, d := range []struct {
			path string
			dec  wire.Decision
		}{
			{bySession, wire.Decision{Scope: "deny", Remember: true}},
			{byDevice, wire.Decision{Scope: "deny", Remember: true, Device: true}},
		} {
			ans := read(t, sess, d.path)
			if ans.Pending == "" {
				t.Fatalf("read %s: %q; want a request", d.path, ans.Reason)
			}
			if _, err := as(userLineage, wire.SessionResponse{}).Decide(ctx, ans.Pending, d.dec); err != nil {
				t.Fatalf("deny %+v: %v", d.dec, err)
			}
		}
	})
	daemon("after a restart", func(t *testing.T) {
		ds, err := as(userLineage, wire.SessionResponse{}).Denials(ctx)
		if err != nil || len(ds) != 2 {
			t.Fatalf("denials listed: %+v, %v; want both", ds, err)
		}
		other, err := as(userLineage, wire.SessionResponse{}).Register(ctx, wire.SessionRequest{Agent: "codex", Cwd: work, Workspace: []string{work}})
		if err != nil {
			t.Fatal(err)
		}
		tests := []struct {
			name   string
			sess   wire.SessionResponse
			path   string
			denied bool
		}{
			{"session denial, its session", sess, bySession, true},
			{"device denial, its session", sess, byDevice, true},
			{"session denial, a new session", other, bySession, false},
			{"device denial, a new session", other, byDevice, true},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				ans := read(t, tt.sess, tt.path)
				if denied := ans.Decision == guard.Deny && ans.Pending == "" && !ans.Eligible; denied != tt.denied {
					t.Errorf("read %s: %+v; want denied at once %v", tt.path, ans, tt.denied)
				}
			})
		}
	})
}

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))
