package ipc

import "testing"

func TestAgentSetPrune(t *testing.T) {
	a := newAgentSet()
	a.add([]Proc{{PID: 1, Start: 1}, {PID: 2, Start: 1}}, "live")
	a.add([]Proc{{PID: 3, Start: 1}}, "ended")
	a.prune(func(s string) bool { return s == "live" })
	if _, ok := a.holds([]lineageEntry{{Proc: Proc{PID: 3, Start: 1}}}); ok {
		t.Fatal("ended session's agent still held")
	}
	if s, ok := a.holds([]lineageEntry{{Proc: Proc{PID: 9}}, {Proc: Proc{PID: 2, Start: 1}}}); !ok || s != "live" {
		t.Fatal("live session's agent forgotten")
	}
	if _, ok := a.holds([]lineageEntry{{Proc: Proc{PID: 2, Start: 2}}}); ok {
		t.Fatal("a reused pid with another start time matched")
	}
}
