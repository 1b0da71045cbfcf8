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
	r, _, _, err := q.submit(wire.Request{Session: "s", Op: guard.OpRead, Path: "/d/x"}, ceiling{})
	if err != nil {
		t.Fatal(err)
	}
	_, _, w1, ok := q.join(r.ID, now.Add(time.Second))
	if !ok {
		t.Fatal("a call could not wait on a pending request")
	}
	if n, ok := q.seal(r.ID); !ok || n != 1 {
		t.Fatalf("seal: %d answered, ok %v; want 1", n, ok)
	}
	if _, ok := q.seal(r.ID); ok {
		t.Error("a request was sealed twice")
	}
	if _, _, _, ok := q.join(r.ID, now.Add(time.Second)); ok {
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
	if _, _, _, ok := q.join(r.ID, now.Add(time.Second)); !ok {
		t.Error("no call may join after unseal")
	}
	if _, err := q.decide(r.ID, wire.StateApproved, "once", "g-1"); err != nil {
		t.Fatal(err)
	}
	if _, _, _, ok := q.join(r.ID, now.Add(time.Second)); ok {
		t.Error("a call joined a decided request")
	}
}
