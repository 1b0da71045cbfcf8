package ipc

import (
	"sort"
	"strings"
	"sync"
)

// agentSet remembers every process that sent checks or tool calls (hooks,
// the shells that ran them, the agent, and the shells the tool calls
// started), with every session it acted for. A person-only call
// (access.go) from a process whose lineage holds one of them is an agent
// approving itself or reaching past its session, and is refused. An entry is never overwritten
// and is forgotten only when its process is gone (its pid absent, or
// naming a process with another start time): ending a session, or using
// a throwaway one, does not unmark the agent. This is defence in depth;
// the approval code is the authority.
type agentSet struct {
	mu    sync.Mutex
	procs map[Proc]map[string]struct{} // -> sessions
}

func newAgentSet() *agentSet { return &agentSet{procs: map[Proc]map[string]struct{}{}} }

func (a *agentSet) add(chain []Proc, session string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, p := range chain {
		set := a.procs[p]
		if set == nil {
			set = map[string]struct{}{}
			a.procs[p] = set
		}
		set[session] = struct{}{}
	}
}

// holds returns the sessions of the first agent process in lineage.
func (a *agentSet) holds(lineage []lineageEntry) (string, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, e := range lineage {
		if set, ok := a.procs[e.Proc]; ok {
			ids := make([]string, 0, len(set))
			for id := range set {
				ids = append(ids, id)
			}
			sort.Strings(ids)
			return strings.Join(ids, ","), true
		}
	}
	return "", false
}

// prune forgets the processes that are gone, so the set does not grow
// with every hook process ever seen.
func (a *agentSet) prune(alive func(Proc) bool) {
	a.mu.Lock()
	procs := make([]Proc, 0, len(a.procs))
	for p := range a.procs {
		procs = append(procs, p)
	}
	a.mu.Unlock()
	for _, p := range procs {
		if !alive(p) {
			a.mu.Lock()
			delete(a.procs, p)
			a.mu.Unlock()
		}
	}
}

// procAlive reports whether p still runs: its pid exists and has the
// same start time.
func procAlive(p Proc) bool {
	_, now, _, err := procInfo(p.PID)
	return err == nil && now.Start == p.Start
}
