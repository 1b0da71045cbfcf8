package engine

import (
	"testing"
	"time"

	"pathgrant/guard"
	"pathgrant/wire"
)

// TestQueueSeal: an approval seals its request before its grant exists.
// The calls waiting then are the ones it answers; no call joins after; a
// call whose wait ends meanwhile is still counted; the sweeper does not
// expire it; unseal (no grant was made) lets calls join again.
func TestQueueSeal(t *testing.T) {
	now := time.Unix(1000, 0)
	q := newQueue(8, 8, time.Minute, func() time.Time { return now })
	ask := wire.Request{Session: "s", Op: guard.OpRead, Path: "/d/x"}
	join := func() int {
		o, err := q.submit(ask, nil, now.Add(time.Second), "")
		if err != nil {
			t.Fatal(err)
		}
		return o.waiter
	}
	o, err := q.submit(ask, nil, now.Add(time.Second), "")
	if err != nil {
		t.Fatal(err)
	}
	r, w1 := o.req, o.waiter
	if w1 == 0 || r.Waiting != 1 {
		t.Fatalf("the call that raised the request is not waiting on it: waiter %d, %d waiting", w1, r.Waiting)
	}
	if n, ok := q.seal(r.ID); !ok || n != 1 {
		t.Fatalf("seal: %d answered, ok %v; want 1", n, ok)
	}
	if _, ok := q.seal(r.ID); ok {
		t.Error("a request was sealed twice")
	}
	if join() != 0 {
		t.Error("a call joined a sealed request")
	}
	if _, answered, changed := q.leave(r.ID, w1); !answered || changed {
		t.Errorf("a sealed call leaving: answered %v changed %v; want counted", answered, changed)
	}
	now = now.Add(2 * time.Minute)
	if ended := q.expire(time.Hour); len(ended) != 0 {
		t.Errorf("the sweeper expired a sealed request: %+v", ended)
	}
	q.unseal(r.ID)
	if join() == 0 {
		t.Error("no call may join after unseal")
	}
	if _, err := q.decide(r.ID, wire.StateApproved, "once", "g-1"); err != nil {
		t.Fatal(err)
	}
	if o, err := q.submit(ask, nil, now.Add(time.Second), ""); err != nil || !o.isNew || o.req.ID == r.ID {
		t.Errorf("a call after the decision: %+v %v; want a new request", o, err)
	}
}

// TestQueueIdle: a request no call waits on may be withdrawn by the one
// command that raised it, however often that command asked (an open its
// EINTR restarted), and by nobody once anyone else asked for it too.
func TestQueueIdle(t *testing.T) {
	tests := []struct {
		name    string
		raisers []raiser // who submitted, in order
		waiting bool     // the last submission still waits
		by      raiser
		idle    bool
	}{
		{"raised once by the command", []raiser{"a"}, false, "a", true},
		{"its retried open", []raiser{"a", "a"}, false, "a", true},
		{"another command asked too", []raiser{"a", "b"}, false, "a", false},
		{"a hook's check asked too", []raiser{"a", ""}, false, "a", false},
		{"a hook's check asked first", []raiser{"", "a"}, false, "a", false},
		{"asked by another command only", []raiser{"b"}, false, "a", false},
		{"unnamed calls are never one asker", []raiser{""}, false, "", false},
		{"a call still waits", []raiser{"a", "a"}, true, "a", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			now := time.Unix(1000, 0)
			q := newQueue(8, 8, time.Minute, func() time.Time { return now })
			ask := wire.Request{Session: "s", Op: guard.OpRead, Path: "/d/x"}
			var o offered
			for _, by := range tt.raisers {
				var err error
				if o, err = q.submit(ask, nil, now.Add(time.Second), by); err != nil {
					t.Fatal(err)
				}
				if !tt.waiting {
					q.leave(o.req.ID, o.waiter)
				}
			}
			if got := q.idle(o.req.ID, tt.by); got != tt.idle {
				t.Errorf("idle(%q) = %v; want %v", tt.by, got, tt.idle)
			}
		})
	}
}
