package ipc

import "sync"

// agentSet remembers every process that sent checks for a session (hooks,
// the shells that ran them, the agent). A decision or revoke from a process
// whose lineage holds one of them is an agent approving itself, and is
// refused.
type agentSet struct {
	mu    sync.Mutex
	procs map[Proc]string // -> session
}

func newAgentSet() *agentSet { return &agentSet{procs: map[Proc]string{}} }

func (a *agentSet) add(chain []Proc, session string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, p := range chain {
		a.procs[p] = session
	}
}

// holds returns the session of the first agent process in lineage.
func (a *agentSet) holds(lineage []lineageEntry) (string, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, e := range lineage {
		if s, ok := a.procs[e.Proc]; ok {
			return s, true
		}
	}
	return "", false
}

// prune forgets the processes of sessions that are no longer live, so the
// set does not grow with every hook process ever seen.
func (a *agentSet) prune(live func(session string) bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for p, s := range a.procs {
		if !live(s) {
			delete(a.procs, p)
		}
	}
}
