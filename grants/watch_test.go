package grants

import (
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"pathgrant/guard"
)

func TestWatcherStopsOnClose(t *testing.T) {
	before := runtime.NumGoroutine()
	e := newEnv(t, func(o *Options) {
		o.NoWatch = false
		o.SweepEvery = 10 * time.Millisecond
	})
	e.session("s1")
	e.put(ScopeSession, e.file("a"), guard.KindFile)
	if runtime.NumGoroutine() <= before {
		t.Fatal("no background goroutines were started")
	}
	if err := e.s.Close(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("%d goroutines after Close, %d before:\n%s",
				runtime.NumGoroutine(), before, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestWatchesFollowLiveGrants(t *testing.T) {
	e := newEnv(t, func(o *Options) { o.NoWatch = false })
	e.session("s1")
	a, b := e.file("d/a"), e.file("d/b")
	d := filepath.Dir(a)
	ga := e.put(ScopeSession, a, guard.KindFile)
	gb := e.put(ScopeSession, b, guard.KindFile)
	assertWatched(t, e.s, map[string]int{a: 1, b: 1, d: 2})

	if err := e.s.Revoke(ga.ID); err != nil {
		t.Fatal(err)
	}
	assertWatched(t, e.s, map[string]int{b: 1, d: 1})

	// Reopening watches the live grants again.
	e.reopen(func(o *Options) { o.NoWatch = false })
	assertWatched(t, e.s, map[string]int{b: 1, d: 1})

	if _, err := e.s.EndSession("s1"); err != nil {
		t.Fatal(err)
	}
	assertWatched(t, e.s, map[string]int{})
	if e.get(gb.ID).Ended != EndSessionEnded {
		t.Fatal("grant did not end with its session")
	}
	// Nothing is watched any more: a later removal changes nothing.
	must(t, os.Remove(b))
	time.Sleep(50 * time.Millisecond)
	if n := e.count(KindInvalidate); n != 0 {
		t.Errorf("%d invalidate records for an ended grant", n)
	}
}

func assertWatched(t *testing.T, s *Store, want map[string]int) {
	t.Helper()
	if got := s.watch.watched(); !maps.Equal(got, want) {
		t.Errorf("watched = %v, want %v", got, want)
	}
}
