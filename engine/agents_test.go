package engine

import (
	"strconv"
	"testing"

	"pathgrant/guard"
)

// TestAgentSetPrune: a process stays marked, with every session it sent
// checks for, until it is gone; ending its sessions does not unmark it.
func TestAgentSetPrune(t *testing.T) {
	a := newAgentSet()
	a.add([]Proc{{PID: 1, Start: 1}, {PID: 2, Start: 1}}, "live", guard.SessionPolicy{})
	a.add([]Proc{{PID: 2, Start: 1}}, "throwaway", guard.SessionPolicy{})
	a.add([]Proc{{PID: 3, Start: 1}}, "ended", guard.SessionPolicy{})
	a.prune(func(p Proc) bool { return p.PID != 3 })
	if _, _, ok := a.holds([]LineageEntry{{Proc: Proc{PID: 3, Start: 1}}}); ok {
		t.Fatal("an exited process still held")
	}
	if s, others, ok := a.holds([]LineageEntry{{Proc: Proc{PID: 9}}, {Proc: Proc{PID: 2, Start: 1}}}); !ok || s != "throwaway" || others != 1 {
		t.Fatalf("running process's sessions: %q and %d others, want the latest and one other", s, others)
	}
	if _, _, ok := a.holds([]LineageEntry{{Proc: Proc{PID: 2, Start: 2}}}); ok {
		t.Fatal("a reused pid with another start time matched")
	}
}

// TestAgentSetHoldsManySessions: a process that opened thousands of
// sessions is named by its latest and a count, so that a refusal (and
// its audit record) stays one short line and costs the same whatever
// the agent did before.
func TestAgentSetHoldsManySessions(t *testing.T) {
	a := newAgentSet()
	agent := Proc{PID: 7, Start: 1}
	for i := range 10000 {
		a.add([]Proc{agent}, "s-"+strconv.Itoa(i), guard.SessionPolicy{})
	}
	latest, others, ok := a.holds([]LineageEntry{{Proc: agent}})
	if !ok || latest != "s-9999" || others != 9999 {
		t.Fatalf("holds: %q and %d others (%v), want s-9999 and 9999", latest, others, ok)
	}
}
