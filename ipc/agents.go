package ipc

import (
	"net/http"
	"sort"
	"strings"
	"sync"

	"pathgrant/grants"
)

// agentSet remembers every process that sent checks (hooks, the shells
// that ran them, the agent), with every session it sent them for. A
// decision or revoke from a process whose lineage holds one of them is an
// agent approving itself, and is refused. An entry is never overwritten
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

// refuseAgents rejects a caller whose process lineage holds a process that
// sent checks for a session, or whose lineage cannot be read (a peer gone,
// a pid reused, /proc unreadable): an agent may never approve or revoke,
// and a caller that cannot be told apart from one is treated as one.
func (s *Server) refuseAgents(r *http.Request) *apiError {
	lin, readable := s.lineage(r).whole()
	if !readable {
		msg := "refused: the caller's process lineage cannot be read, so it may be an agent; decide from your own terminal or the app"
		s.audit(grants.Record{Kind: grants.KindForged, Reason: "decide or revoke from a caller whose lineage cannot be read"})
		return errorf(http.StatusForbidden, grants.KindForged, "%s", msg)
	}
	session, ok := s.agents.holds(lin)
	if !ok {
		return nil
	}
	msg := "refused: the caller runs under an agent of session " + session + "; approve from outside the agent"
	s.audit(grants.Record{Kind: grants.KindForged, Session: session, Reason: "agent tried to decide or revoke"})
	return errorf(http.StatusForbidden, grants.KindForged, "%s", msg)
}
