package grants

import (
	"errors"
	"os"
	"slices"
	"testing"
	"time"

	"pathgrant/guard"
)

var scopeCases = []struct {
	scope      Scope
	reusable   bool          // serves again after a use
	lifetime   time.Duration // 0: never expires by time
	otherSess  bool          // serves other sessions
	outlivesSS bool          // keeps serving after its session ends
}{
	{ScopeOnce, false, DefaultOnceTTL, false, false},
	{ScopeSession, true, time.Hour, false, false},
	{ScopeDevice, true, 0, true, true},
}

func lifecycleEnv(t *testing.T) *env {
	e := newEnv(t, func(o *Options) { o.SessionMaxAge = time.Hour })
	e.session("s1")
	e.session("s2")
	return e
}

func TestScopeUse(t *testing.T) {
	for _, tc := range scopeCases {
		t.Run(string(tc.scope), func(t *testing.T) {
			e := lifecycleEnv(t)
			p := e.file("a.txt")
			g := e.put(tc.scope, p, guard.KindFile)
			v := e.s.View("s1")
			if got := v.Lookup(guard.OpRead, p, false); got != g.ID {
				t.Fatalf("Lookup = %q, want %q", got, g.ID)
			}
			if got := e.s.View("s2").Lookup(guard.OpRead, p, false) != ""; got != tc.otherSess {
				t.Errorf("serves another session = %v, want %v", got, tc.otherSess)
			}
			e.clock.Add(time.Minute)
			if err := v.Use(g.ID); err != nil {
				t.Fatalf("first Use: %v", err)
			}
			after := e.get(g.ID)
			if after.UseCount != 1 || !after.LastUsed.Equal(e.clock.Now()) {
				t.Errorf("after use: count %d last %v, want 1 at %v", after.UseCount, after.LastUsed, e.clock.Now())
			}
			err := v.Use(g.ID)
			if tc.reusable && err != nil {
				t.Errorf("second Use: %v", err)
			}
			if !tc.reusable && !errors.Is(err, ErrEnded) {
				t.Errorf("second Use = %v, want ErrEnded", err)
			}
			if served := v.Lookup(guard.OpRead, p, false) != ""; served != tc.reusable {
				t.Errorf("serves after use = %v, want %v", served, tc.reusable)
			}
		})
	}
}

func TestScopeExpiry(t *testing.T) {
	for _, tc := range scopeCases {
		t.Run(string(tc.scope), func(t *testing.T) {
			e := lifecycleEnv(t)
			p := e.file("a.txt")
			g := e.put(tc.scope, p, guard.KindFile)
			v := e.s.View("s1")
			if tc.lifetime == 0 {
				e.clock.Add(1000 * time.Hour)
				if n, err := e.s.sweep(); err != nil || n != 0 {
					t.Fatalf("Sweep = %d, %v; want 0 grants ended", n, err)
				}
				if v.Lookup(guard.OpRead, p, false) != g.ID {
					t.Fatal("device grant stopped serving with time")
				}
				return
			}
			e.clock.Add(tc.lifetime - time.Second)
			if v.Lookup(guard.OpRead, p, false) != g.ID {
				t.Fatal("stopped serving before its expiry")
			}
			e.clock.Add(time.Second)
			if v.Lookup(guard.OpRead, p, false) != "" {
				t.Fatal("serves at its expiry, before any sweep")
			}
			if err := v.Use(g.ID); !errors.Is(err, ErrExpired) {
				t.Errorf("Use after expiry = %v, want ErrExpired", err)
			}
			before := e.count(KindExpire)
			if n, err := e.s.sweep(); err != nil || n != 1 {
				t.Fatalf("Sweep = %d, %v; want 1", n, err)
			}
			if got := e.get(g.ID); got.Ended != EndExpired || got.RevokedAt.IsZero() {
				t.Errorf("after sweep: ended %q revoked-at %v", got.Ended, got.RevokedAt)
			}
			if got := e.count(KindExpire) - before; got != 1 {
				t.Errorf("expire records = %d, want 1", got)
			}
		})
	}
}

func TestScopeRevoke(t *testing.T) {
	for _, tc := range scopeCases {
		t.Run(string(tc.scope), func(t *testing.T) {
			e := lifecycleEnv(t)
			p := e.file("a.txt")
			g := e.put(tc.scope, p, guard.KindFile)
			if err := e.s.Revoke(g.ID); err != nil {
				t.Fatalf("Revoke: %v", err)
			}
			if e.s.View("s1").Lookup(guard.OpRead, p, false) != "" {
				t.Error("revoked grant still serves")
			}
			if got := e.get(g.ID); got.Ended != EndRevoked || got.RevokedAt.IsZero() {
				t.Errorf("after revoke: ended %q revoked-at %v", got.Ended, got.RevokedAt)
			}
			if err := e.s.Revoke(g.ID); !errors.Is(err, ErrEnded) {
				t.Errorf("second Revoke = %v, want ErrEnded", err)
			}
			if err := e.s.View("s1").Use(g.ID); !errors.Is(err, ErrEnded) {
				t.Errorf("Use after revoke = %v, want ErrEnded", err)
			}
		})
	}
}

func TestScopeSessionEnd(t *testing.T) {
	for _, tc := range scopeCases {
		t.Run(string(tc.scope), func(t *testing.T) {
			e := lifecycleEnv(t)
			p := e.file("a.txt")
			g := e.put(tc.scope, p, guard.KindFile)
			n, err := e.s.EndSession("s1")
			if err != nil {
				t.Fatalf("EndSession: %v", err)
			}
			if want := map[bool]int{true: 0, false: 1}[tc.outlivesSS]; n != want {
				t.Errorf("EndSession ended %d grants, want %d", n, want)
			}
			if served := e.s.View("s1").Lookup(guard.OpRead, p, false) != ""; served != tc.outlivesSS {
				t.Errorf("serves after session end = %v, want %v", served, tc.outlivesSS)
			}
			if !tc.outlivesSS && e.get(g.ID).Ended != EndSessionEnded {
				t.Errorf("ended = %q, want %q", e.get(g.ID).Ended, EndSessionEnded)
			}
			if _, err := e.s.Put(NewGrant{Scope: ScopeSession, Op: guard.OpRead, Path: p,
				Kind: guard.KindFile, Session: "s1"}); !errors.Is(err, ErrSessionEnded) {
				t.Errorf("Put in ended session = %v, want ErrSessionEnded", err)
			}
			if _, err := e.s.StartSession(Session{ID: "s1"}); !errors.Is(err, ErrSessionEnded) {
				t.Errorf("restarting an ended session = %v, want ErrSessionEnded", err)
			}
		})
	}
}

func TestSessionMaxAgeEndsSession(t *testing.T) {
	e := lifecycleEnv(t)
	p := e.file("a.txt")
	once := e.put(ScopeOnce, p, guard.KindFile)
	sess := e.put(ScopeSession, p, guard.KindFile)
	dev := e.put(ScopeDevice, p, guard.KindFile)
	e.clock.Add(time.Hour)
	n, err := e.s.sweep()
	if err != nil {
		t.Fatal(err)
	}
	if n != 2 { // the once grant (10 min) and the session grant (1 h)
		t.Errorf("Sweep ended %d grants, want 2", n)
	}
	if got, err := e.s.loadSession("s1"); err != nil || got.Ended.IsZero() {
		t.Errorf("session after max age: %+v, %v; want ended", got, err)
	}
	for _, id := range []string{once.ID, sess.ID} {
		if e.get(id).Ended != EndExpired {
			t.Errorf("grant %s: ended %q, want expired", id, e.get(id).Ended)
		}
	}
	if e.get(dev.ID).Ended != "" {
		t.Error("device grant ended with its session's max age")
	}
}

func TestPutRefuses(t *testing.T) {
	e := lifecycleEnv(t)
	p := e.file("a.txt")
	dir := e.folder("d")
	cases := []struct {
		name string
		n    NewGrant
		want error
	}{
		{"device write", NewGrant{Scope: ScopeDevice, Op: guard.OpWrite, Path: p, Kind: guard.KindFile}, ErrDeviceReadOnly},
		{"device execute", NewGrant{Scope: ScopeDevice, Op: guard.OpExecute, Path: p, Kind: guard.KindFile}, ErrDeviceReadOnly},
		{"device delete", NewGrant{Scope: ScopeDevice, Op: guard.OpDelete, Path: p, Kind: guard.KindFile}, ErrDeviceReadOnly},
		{"unknown scope", NewGrant{Scope: "forever", Op: guard.OpRead, Path: p, Kind: guard.KindFile, Session: "s1"}, ErrInvalid},
		{"unknown op", NewGrant{Scope: ScopeSession, Op: "chmod", Path: p, Kind: guard.KindFile, Session: "s1"}, ErrInvalid},
		{"unknown kind", NewGrant{Scope: ScopeSession, Op: guard.OpRead, Path: p, Kind: "tree", Session: "s1"}, ErrInvalid},
		{"relative path", NewGrant{Scope: ScopeSession, Op: guard.OpRead, Path: "a.txt", Kind: guard.KindFile, Session: "s1"}, ErrInvalid},
		{"unclean path", NewGrant{Scope: ScopeSession, Op: guard.OpRead, Path: dir + "/../d/x", Kind: guard.KindFile, Session: "s1"}, ErrInvalid},
		{"no session", NewGrant{Scope: ScopeOnce, Op: guard.OpRead, Path: p, Kind: guard.KindFile}, ErrInvalid},
		{"unknown session", NewGrant{Scope: ScopeSession, Op: guard.OpRead, Path: p, Kind: guard.KindFile, Session: "nope"}, ErrNotFound},
		{"folder on a file", NewGrant{Scope: ScopeSession, Op: guard.OpRead, Path: p, Kind: guard.KindFolder, Session: "s1"}, ErrInvalid},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := len(e.audit())
			if _, err := e.s.Put(tc.n); !errors.Is(err, tc.want) {
				t.Fatalf("Put = %v, want %v", err, tc.want)
			}
			if got := len(e.audit()); got != before {
				t.Errorf("refused Put wrote %d audit records", got-before)
			}
		})
	}
	t.Run("missing path", func(t *testing.T) {
		if _, err := e.s.Put(NewGrant{Scope: ScopeSession, Op: guard.OpRead, Path: dir + "/missing",
			Kind: guard.KindFile, Session: "s1"}); err == nil {
			t.Fatal("Put on a missing path succeeded")
		}
	})
	t.Run("through a symlink", func(t *testing.T) {
		link := dir + "/link"
		if err := os.Symlink(p, link); err != nil {
			t.Fatal(err)
		}
		if _, err := e.s.Put(NewGrant{Scope: ScopeSession, Op: guard.OpRead, Path: link,
			Kind: guard.KindFile, Session: "s1"}); !errors.Is(err, ErrInvalid) {
			t.Fatalf("Put on a symlink = %v, want ErrInvalid", err)
		}
	})
}

func TestLookupCoverage(t *testing.T) {
	e := lifecycleEnv(t)
	dir := e.folder("dl")
	inner := e.file("dl/sub/x.txt")
	single := e.file("other/y.txt")
	sibling := e.file("dlx/z.txt")
	folder := e.put(ScopeSession, dir, guard.KindFolder)
	file := e.put(ScopeSession, single, guard.KindFile)
	v := e.s.View("s1")
	cases := []struct {
		name string
		op   guard.Op
		path string
		tree bool
		want string
	}{
		{"folder itself", guard.OpRead, dir, false, folder.ID},
		{"folder tree", guard.OpRead, dir, true, folder.ID},
		{"file under folder", guard.OpRead, inner, false, folder.ID},
		{"subtree under folder", guard.OpRead, dir + "/sub", true, folder.ID},
		{"sibling with shared prefix", guard.OpRead, sibling, false, ""},
		{"file grant exact", guard.OpRead, single, false, file.ID},
		{"file grant never a tree", guard.OpRead, single, true, ""},
		{"file grant not its parent", guard.OpRead, e.dir + "/other", false, ""},
		{"read grant never serves write", guard.OpWrite, single, false, ""},
		{"read grant never serves execute", guard.OpExecute, inner, false, ""},
		{"unrelated path", guard.OpRead, "/etc/passwd", false, ""},
		{"empty path", guard.OpRead, "", false, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := v.Lookup(tc.op, tc.path, tc.tree); got != tc.want {
				t.Errorf("Lookup(%s, %s, tree=%v) = %q, want %q", tc.op, tc.path, tc.tree, got, tc.want)
			}
		})
	}
}

func TestLookupPrefersLongerScopeToOnce(t *testing.T) {
	e := lifecycleEnv(t)
	p := e.file("a.txt")
	e.put(ScopeOnce, p, guard.KindFile)
	sess := e.put(ScopeSession, e.dir, guard.KindFolder)
	if got := e.s.View("s1").Lookup(guard.OpRead, p, false); got != sess.ID {
		t.Errorf("Lookup = %q, want the session grant %q (the once grant nearer the path must not be spent)", got, sess.ID)
	}
}

func TestLookupChangesNothing(t *testing.T) {
	e := lifecycleEnv(t)
	p := e.file("a.txt")
	g := e.put(ScopeOnce, p, guard.KindFile)
	records := len(e.audit())
	for range 20 {
		if e.s.View("s1").Lookup(guard.OpRead, p, false) != g.ID {
			t.Fatal("once grant stopped serving after lookups")
		}
	}
	if got := e.get(g.ID); got.UseCount != 0 || !got.LastUsed.IsZero() || got.Ended != "" {
		t.Errorf("lookups changed the grant: %+v", got)
	}
	if got := len(e.audit()); got != records {
		t.Errorf("lookups wrote %d audit records", got-records)
	}
}

func TestUseIsAllOrNothing(t *testing.T) {
	e := lifecycleEnv(t)
	a := e.put(ScopeSession, e.file("a"), guard.KindFile)
	b := e.put(ScopeSession, e.file("b"), guard.KindFile)
	if err := e.s.Revoke(b.ID); err != nil {
		t.Fatal(err)
	}
	records := len(e.audit())
	if err := e.s.View("s1").Use(a.ID, b.ID); !errors.Is(err, ErrEnded) {
		t.Fatalf("Use with a revoked grant = %v, want ErrEnded", err)
	}
	if e.get(a.ID).UseCount != 0 || len(e.audit()) != records {
		t.Error("a failed Use recorded a use")
	}
	if err := e.s.View("s2").Use(a.ID); !errors.Is(err, ErrWrongSession) {
		t.Errorf("Use from another session = %v, want ErrWrongSession", err)
	}
	if err := e.s.View("s1").Use("g-nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Use of an unknown id = %v, want ErrNotFound", err)
	}
}

func TestList(t *testing.T) {
	e := lifecycleEnv(t)
	a := e.put(ScopeSession, e.file("a"), guard.KindFile)
	e.clock.Add(time.Second)
	b := e.put(ScopeDevice, e.file("b"), guard.KindFile)
	e.clock.Add(time.Second)
	c := e.put(ScopeOnce, e.file("c"), guard.KindFile)
	e.clock.Add(time.Second)
	other, err := e.s.Put(NewGrant{Scope: ScopeSession, Op: guard.OpRead, Path: e.file("d"),
		Kind: guard.KindFile, Session: "s2"})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.s.Revoke(a.ID); err != nil {
		t.Fatal(err)
	}
	e.clock.Add(DefaultOnceTTL) // c expires, not yet swept
	cases := []struct {
		name string
		f    Filter
		want []string
	}{
		{"live", Filter{}, []string{b.ID, other.ID}},
		{"session", Filter{Session: "s1"}, []string{b.ID}},
		{"scope", Filter{Scope: ScopeSession}, []string{other.ID}},
		{"with revoked", Filter{Session: "s1", IncludeRevoked: true}, []string{a.ID, b.ID}},
		{"with expired", Filter{Session: "s1", IncludeExpired: true}, []string{b.ID, c.ID}},
		{"everything", Filter{IncludeRevoked: true, IncludeExpired: true}, []string{a.ID, b.ID, c.ID, other.ID}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			gs, err := e.s.List(tc.f)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, g := range gs {
				got = append(got, g.ID)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("List(%+v) = %v, want %v", tc.f, got, tc.want)
			}
		})
	}
}

func TestRevokeSessionIncludesDeviceGrants(t *testing.T) {
	e := lifecycleEnv(t)
	p := e.file("a")
	a := e.put(ScopeSession, p, guard.KindFile)
	b := e.put(ScopeDevice, p, guard.KindFile)
	c := e.put(ScopeOnce, p, guard.KindFile)
	keep, err := e.s.Put(NewGrant{Scope: ScopeDevice, Op: guard.OpRead, Path: p, Kind: guard.KindFile, Session: "s2"})
	if err != nil {
		t.Fatal(err)
	}
	n, err := e.s.RevokeSession("s1")
	if err != nil || n != 3 {
		t.Fatalf("RevokeSession = %d, %v; want 3", n, err)
	}
	for _, id := range []string{a.ID, b.ID, c.ID} {
		if e.get(id).Ended != EndRevoked {
			t.Errorf("%s not revoked", id)
		}
	}
	if e.get(keep.ID).Ended != "" {
		t.Error("another session's grant was revoked")
	}
	if got := e.s.View("s1").Lookup(guard.OpRead, p, false); got != keep.ID {
		t.Errorf("Lookup = %q, want the surviving device grant %q", got, keep.ID)
	}
}
