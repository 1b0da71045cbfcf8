package grants

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"pathgrant/guard"
)

// A change made to a granted path between approval and use.
type change struct {
	name    string
	target  string // path granted, relative to the scratch folder
	kind    guard.GrantKind
	mutate  func(t *testing.T, dir, p string)
	replace bool // whether the grant must stop matching
}

var changes = []change{
	{"removed", "a.txt", guard.KindFile, func(t *testing.T, _, p string) { must(t, os.Remove(p)) }, true},
	{"renamed away", "a.txt", guard.KindFile, func(t *testing.T, _, p string) { must(t, os.Rename(p, p+".old")) }, true},
	{"replaced by a new file", "a.txt", guard.KindFile, func(t *testing.T, _, p string) {
		must(t, os.WriteFile(p+".tmp", []byte("other"), 0o600))
		must(t, os.Rename(p+".tmp", p))
	}, true},
	{"symlink to the same file swapped in", "a.txt", guard.KindFile, func(t *testing.T, _, p string) {
		must(t, os.Rename(p, p+".orig"))
		must(t, os.Symlink(p+".orig", p))
	}, true},
	{"symlink to another file swapped in", "a.txt", guard.KindFile, func(t *testing.T, dir, p string) {
		must(t, os.WriteFile(filepath.Join(dir, "secret"), []byte("s"), 0o600))
		must(t, os.Remove(p))
		must(t, os.Symlink(filepath.Join(dir, "secret"), p))
	}, true},
	{"parent folder renamed", "sub/a.txt", guard.KindFile, func(t *testing.T, _, p string) {
		must(t, os.Rename(filepath.Dir(p), filepath.Dir(p)+"2"))
	}, true},
	{"folder replaced", "f", guard.KindFolder, func(t *testing.T, _, p string) {
		must(t, os.Rename(p, p+".old"))
		must(t, os.Mkdir(p, 0o700))
	}, true},
	{"folder swapped for a symlink", "f", guard.KindFolder, func(t *testing.T, _, p string) {
		must(t, os.Rename(p, p+".old"))
		must(t, os.Symlink(p+".old", p))
	}, true},
	{"rewritten in place", "a.txt", guard.KindFile, func(t *testing.T, _, p string) {
		must(t, os.WriteFile(p, []byte("new contents"), 0o600))
	}, false},
	{"file added in granted folder", "f", guard.KindFolder, func(t *testing.T, _, p string) {
		must(t, os.WriteFile(filepath.Join(p, "new"), nil, 0o600))
	}, false},
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// prepare makes the granted path and a session grant on it.
func (c change) prepare(e *env) (string, Grant) {
	var p string
	if c.kind == guard.KindFolder {
		p = e.folder(c.target)
		e.file(c.target + "/inside")
	} else {
		p = e.file(c.target)
	}
	e.session("s1")
	return p, e.put(ScopeSession, p, c.kind)
}

// checkOutcome asserts the grant's state and its invalidate records.
func (c change) checkOutcome(t *testing.T, e *env, g Grant) {
	t.Helper()
	want, records := End(""), 0
	if c.replace {
		want, records = EndInvalidated, 1
	}
	if got := e.get(g.ID); got.Ended != want || got.UseCount != 0 {
		t.Errorf("grant: ended %q, uses %d; want %q, 0", got.Ended, got.UseCount, want)
	}
	recs, err := e.s.AuditRecords(AuditFilter{Kind: KindInvalidate})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != records {
		t.Fatalf("%d invalidate records, want %d", len(recs), records)
	}
	if records == 1 && (recs[0].Grant != g.ID || recs[0].Path != g.Path || recs[0].Reason == "") {
		t.Errorf("invalidate record %+v does not say which grant and why", recs[0])
	}
}

func TestReplacementNoticedAtLookup(t *testing.T) {
	for _, c := range changes {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, nil)
			p, g := c.prepare(e)
			c.mutate(t, e.dir, p)
			want := g.ID
			if c.replace {
				want = ""
			}
			for range 2 { // the second lookup must not audit again
				if got := e.s.View("s1").Lookup(guard.OpRead, p, false); got != want {
					t.Fatalf("Lookup = %q, want %q", got, want)
				}
			}
			c.checkOutcome(t, e, g)
		})
	}
}

func TestReplacementNoticedAtUse(t *testing.T) {
	for _, c := range changes {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, nil)
			p, g := c.prepare(e)
			if e.s.View("s1").Lookup(guard.OpRead, p, false) != g.ID {
				t.Fatal("grant does not serve before the change")
			}
			c.mutate(t, e.dir, p) // between the decision and the use
			err := e.s.View("s1").Use(g.ID)
			if c.replace && !errors.Is(err, ErrIdentityChanged) {
				t.Fatalf("Use = %v, want ErrIdentityChanged", err)
			}
			if !c.replace {
				if err != nil {
					t.Fatalf("Use = %v", err)
				}
				if got := e.get(g.ID); got.UseCount != 1 {
					t.Errorf("use count %d, want 1", got.UseCount)
				}
				return
			}
			c.checkOutcome(t, e, g)
		})
	}
}

func TestReplacementNoticedByWatcher(t *testing.T) {
	for _, c := range changes {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, func(o *Options) { o.NoWatch = false })
			p, g := c.prepare(e)
			c.mutate(t, e.dir, p)
			if !c.replace {
				// Give the watcher the time it takes to act on a real change.
				sentinel := e.file("sentinel")
				e.put(ScopeSession, sentinel, guard.KindFile)
				must(t, os.Remove(sentinel))
				waitFor(t, "sentinel invalidation", func() bool { return e.count(KindInvalidate) == 1 })
				if e.get(g.ID).Ended != "" {
					t.Fatalf("unchanged grant ended: %q", e.get(g.ID).Ended)
				}
				return
			}
			// No lookup or use here: only the watcher can notice.
			waitFor(t, "invalidation", func() bool { return e.get(g.ID).Ended == EndInvalidated })
			c.checkOutcome(t, e, g)
			if e.s.View("s1").Lookup(guard.OpRead, p, false) != "" {
				t.Error("invalidated grant still serves")
			}
			c.checkOutcome(t, e, g)
		})
	}
}
