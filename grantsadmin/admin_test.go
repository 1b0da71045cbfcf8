package grantsadmin

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"pathgrant/applink"
	"pathgrant/grants"
	"pathgrant/guard"
	"pathgrant/ipc"
	"pathgrant/ipc/ipctest"
	"pathgrant/wire"
)

// fixture is a store with two sessions' grants on real files.
type fixture struct {
	dir                string
	store              *grants.Store
	s1a, s1b, s1d, s2a string // grant ids: session s1 (two, one device), session s2
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{dir: dir, store: ipctest.OpenStore(t, dir+"/state/pathgrant.db")}
	for _, id := range []string{"s1", "s2"} {
		if _, err := f.store.StartSession(grants.Session{ID: id}); err != nil {
			t.Fatal(err)
		}
	}
	put := func(scope grants.Scope, session, name string) string {
		path := dir + "/" + name
		if err := os.WriteFile(path, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		g, err := f.store.Put(grants.NewGrant{Scope: scope, Op: guard.OpRead, Path: path, Kind: guard.KindFile, Session: session})
		if err != nil {
			t.Fatal(err)
		}
		return g.ID
	}
	f.s1a, f.s1b = put(grants.ScopeSession, "s1", "a"), put(grants.ScopeSession, "s1", "b")
	f.s1d, f.s2a = put(grants.ScopeDevice, "s1", "d"), put(grants.ScopeSession, "s2", "a")
	den := grants.Denial{Denial: wire.Denial{ID: "d0e1a2b3c4d5", Session: "s1", Op: guard.OpRead, Path: dir + "/secret", Device: true}}
	if err := f.store.PutDenial(den); err != nil {
		t.Fatal(err)
	}
	return f
}

// serve runs a daemon over the fixture's store and returns its socket.
func (f *fixture) serve(t *testing.T) string {
	t.Helper()
	sock := f.dir + "/run/pathgrant.sock"
	ipctest.Serve(t, ipc.New(ipc.Config{HooksBelow: true, Store: f.store, Home: f.dir + "/home", Logger: ipctest.Quiet}), sock)
	return sock
}

// TestAdmin runs the same operations on both Admins: the answers and the
// errors callers branch on are the same.
func TestAdmin(t *testing.T) {
	tests := []struct {
		name string
		open func(t *testing.T, f *fixture) Admin
	}{
		{"daemon", func(t *testing.T, f *fixture) Admin {
			a, ok := Dial(f.serve(t))
			if !ok {
				t.Fatal("no daemon answers")
			}
			return a
		}},
		{"file", func(t *testing.T, f *fixture) Admin { return File(f.store) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			a := tt.open(t, f)
			if gs, err := a.List(grants.Filter{Session: "s1"}); err != nil || len(gs) != 3 {
				t.Fatalf("List(s1) = %d grants, %v; want 3", len(gs), err)
			}
			if err := a.Revoke(f.s1a); err != nil {
				t.Fatalf("Revoke: %v", err)
			}
			if err := a.Revoke(f.s1a); !errors.Is(err, grants.ErrEnded) || strings.Count(err.Error(), "ended") != 1 {
				t.Errorf("Revoke again = %v, want ErrEnded, said once", err)
			}
			if err := a.Revoke("g-nope"); !errors.Is(err, grants.ErrNotFound) {
				t.Errorf("Revoke unknown = %v, want ErrNotFound", err)
			}
			if n, err := a.RevokeSession("s1"); err != nil || n != 2 {
				t.Errorf("RevokeSession(s1) = %d, %v; want 2 (the other and the device grant)", n, err)
			}
			live, err := a.List(grants.Filter{})
			if err != nil || len(live) != 1 || live[0].ID != f.s2a || a.State(live[0]) != "live" {
				t.Errorf("live grants = %+v, %v; want only %s", live, err, f.s2a)
			}
			recs, err := a.Audit(grants.AuditFilter{Kind: grants.KindRevoke})
			if err != nil || len(recs) != 3 {
				t.Errorf("revoke records = %d, %v; want 3", len(recs), err)
			}
			if ds, err := a.Denials(); err != nil || len(ds) != 1 || !ds[0].Device {
				t.Errorf("Denials = %+v, %v; want the device denial", ds, err)
			}
			if err := a.LiftDenial("d0e1a2"); err != nil {
				t.Errorf("LiftDenial by prefix: %v", err)
			}
			if err := a.LiftDenial("d0e1a2"); !errors.Is(err, grants.ErrNotFound) {
				t.Errorf("LiftDenial again = %v, want ErrNotFound", err)
			}
			if ds, err := a.Denials(); err != nil || len(ds) != 0 {
				t.Errorf("Denials after the lift = %+v, %v; want none", ds, err)
			}
			n := 0
			if err := a.EachAudit(grants.AuditFilter{Session: "s2"}, func(grants.Record) error { n++; return nil }); err != nil || n != 1 {
				t.Errorf("EachAudit(s2) saw %d records, %v; want 1 (its approval)", n, err)
			}
		})
	}
}

// TestOpen: a daemon answering wins (its store is locked, so the file
// could not even be opened); without one the file is used; a missing
// store is fs.ErrNotExist.
func TestOpen(t *testing.T) {
	f := newFixture(t)
	sock := f.serve(t)
	idle := newFixture(t)
	idle.store.Close()
	tests := []struct {
		name, socket, store string
		want                string // "" for an error wrapping fs.ErrNotExist
	}{
		{"daemon answers", sock, f.store.Path(), "the daemon at " + sock},
		{"no daemon", idle.dir + "/run/none.sock", idle.store.Path(), "the store " + idle.store.Path()},
		{"no socket given", "", idle.store.Path(), "the store " + idle.store.Path()},
		{"no store yet", idle.dir + "/run/none.sock", idle.dir + "/missing/pathgrant.db", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := Open(tt.socket, tt.store)
			if tt.want == "" {
				if !errors.Is(err, fs.ErrNotExist) {
					t.Fatalf("Open = %v, want fs.ErrNotExist", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			if a.Where() != tt.want {
				t.Errorf("Open chose %s, want %s", a.Where(), tt.want)
			}
		})
	}
}

// The app's link is the one Asker: the settings window reaches the
// person's own requests through it.
var _ Asker = (*applink.App)(nil)
