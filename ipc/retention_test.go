package ipc

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"pathgrant/apiclient"
	"pathgrant/grants"
	"pathgrant/wire"
)

// fakeClock is a settable clock for one test.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

const day = 24 * time.Hour

// endedSession registers a session, ends it (the daemon audits the end),
// and audits one more record for it: two records for a prune to remove.
func (e *testEnv) endedSession() string {
	e.t.Helper()
	s := e.register(wire.SessionRequest{Agent: "a"})
	if err := e.clientFor(s).EndSession(context.Background(), s.ID); err != nil {
		e.t.Fatal(err)
	}
	if err := e.store.Audit(grants.Record{Kind: grants.KindDeny, Session: s.ID, Reason: "test"}); err != nil {
		e.t.Fatal(err)
	}
	return s.ID
}

// newPrune waits up to wait for a prune record after seq and returns it.
func (e *testEnv) newPrune(seq uint64, wait time.Duration) (grants.Record, bool) {
	e.t.Helper()
	deadline := time.Now().Add(wait)
	for {
		recs, err := e.store.AuditRecords(grants.AuditFilter{Kind: grants.KindPrune})
		if err != nil {
			e.t.Fatal(err)
		}
		if n := len(recs); n > 0 && recs[n-1].Seq > seq {
			return recs[n-1], true
		}
		if time.Now().After(deadline) {
			return grants.Record{}, false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestRetentionAtStart: a daemon starting with a clock past the retention
// prunes before it answers anything.
func TestRetentionAtStart(t *testing.T) {
	e := newTestEnv(t)
	e.endedSession()
	later := &fakeClock{t: time.Now().Add(DefaultRetention + day)}
	cfg := e.srv.cfg
	cfg.Now = later.Now
	srv := New(cfg)
	ln, err := Listen(e.sock + ".2")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Shutdown(context.Background()) })
	if err := apiclient.New(e.sock + ".2").Health(context.Background()); err != nil {
		t.Fatal(err)
	}
	rec, ok := e.newPrune(0, 0)
	if !ok || !strings.Contains(rec.Reason, "pruned 1 ended session(s) and 2 audit record(s)") {
		t.Fatalf("prune record at start: %+v, %v", rec, ok)
	}
}

// TestRetentionDaily: the sweeper prunes once a day by the server's
// clock, not at every tick, and only what is past the retention.
func TestRetentionDaily(t *testing.T) {
	clock := &fakeClock{t: time.Now()}
	e := newTestEnv(t, func(c *Config) { c.Now = clock.Now; c.Retention = 30 * day })
	steps := []struct {
		name    string
		advance time.Duration
		reason  string // of the prune record this step writes; "" for none
	}{
		{"within retention: nothing pruned", 29 * day, ""},
		{"past retention: pruned at the next tick", 2 * day, "pruned 3 ended session(s) and 6 audit record(s)"},
		{"less than a day later: not due", 12 * time.Hour, ""},
		// the last prune's own record is now past retention by the fake clock
		{"a day later: pruned again", 12 * time.Hour, "pruned 2 ended session(s) and 5 audit record(s)"},
	}
	e.endedSession()
	e.endedSession()
	var seq uint64
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			clock.Add(st.advance)
			rec, ok := e.newPrune(seq, 3*time.Second) // the sweeper ticks every second
			if ok != (st.reason != "") || !strings.Contains(rec.Reason, st.reason) {
				t.Fatalf("prune record %+v (written: %v), want %q", rec, ok, st.reason)
			}
			if ok {
				seq = rec.Seq
			}
			e.endedSession() // ended now (by the store's clock): past retention from here on
		})
	}
}
