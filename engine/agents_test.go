package engine

import (
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
	if _, ok := a.holds([]LineageEntry{{Proc: Proc{PID: 3, Start: 1}}}); ok {
		t.Fatal("an exited process still held")
	}
	if s, ok := a.holds([]LineageEntry{{Proc: Proc{PID: 9}}, {Proc: Proc{PID: 2, Start: 1}}}); !ok || s != "live,throwaway" {
		t.Fatalf("running process's sessions: %q, want both", s)
	}
	if _, ok := a.holds([]LineageEntry{{Proc: Proc{PID: 2, Start: 2}}}); ok {
		t.Fatal("a reused pid with another start time matched")
	}
}
