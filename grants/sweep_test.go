package grants

import (
	"testing"
	"time"

	"pathgrant/guard"
)

func TestBackgroundSweeper(t *testing.T) {
	e := newEnv(t, func(o *Options) { o.SweepEvery = 5 * time.Millisecond })
	e.session("s1")
	g := e.put(ScopeOnce, e.file("a"), guard.KindFile)
	keep := e.put(ScopeSession, e.file("b"), guard.KindFile)
	time.Sleep(30 * time.Millisecond)
	if e.get(g.ID).Ended != "" {
		t.Fatal("sweeper ended a grant before its expiry")
	}
	e.clock.Add(DefaultOnceTTL)
	waitFor(t, "background expiry", func() bool { return e.get(g.ID).Ended == EndExpired })
	if e.get(keep.ID).Ended != "" {
		t.Error("sweeper ended a grant that has not expired")
	}
	if n := e.count(KindExpire); n != 1 {
		t.Errorf("%d expire records, want 1", n)
	}
}
