package ipc

import (
	"net/http"
	"sync"

	"pathgrant/grants"
)

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

// refuseAgents rejects a caller whose process lineage holds a process that
// sent checks for a session: an agent may never approve or revoke.
func (s *Server) refuseAgents(r *http.Request) *apiError {
	session, ok := s.agents.holds(s.lineage(r).all())
	if !ok {
		return nil
	}
	msg := "refused: the caller runs under an agent of session " + session + "; approve from outside the agent"
	s.audit(grants.Record{Kind: grants.KindForged, Session: session, Reason: "agent tried to decide or revoke"})
	return errorf(http.StatusForbidden, grants.KindForged, "%s", msg)
}
