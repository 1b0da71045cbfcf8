package engine

import (
	"slices"
	"sort"
	"strings"
	"sync"

	"pathgrant/guard"
)

// agentSet remembers every process that sent checks or tool calls (hooks,
// the shells that ran them, the agent, and the shells the tool calls
// started), with every session it acted for. A person-only call
// (access.go) from a process whose lineage holds one of them is an agent
// approving itself or reaching past its session, and is refused. An
// entry is never overwritten and is forgotten only when its process is gone (its pid absent, or
// naming a process with another start time): ending a session, or using
// a throwaway one, does not unmark the agent. This is defence in depth;
// the approval code is the authority.
type agentSet struct {
	mu    sync.Mutex
	procs map[Proc]*agentEntry
}

// agentEntry is what one agent process acted for: its sessions, and the
// distinct roots they had (an agent opens session after session over the
// same project, so the roots stay few however many sessions it has).
type agentEntry struct {
	sessions map[string]struct{}
	roots    []guard.SessionPolicy
}

func newAgentSet() *agentSet { return &agentSet{procs: map[Proc]*agentEntry{}} }

// add marks chain as session's agent processes; roots are the session's.
func (a *agentSet) add(chain []Proc, session string, roots guard.SessionPolicy) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, p := range chain {
		e := a.procs[p]
		if e == nil {
			e = &agentEntry{sessions: map[string]struct{}{}}
			a.procs[p] = e
		}
		e.sessions[session] = struct{}{}
		if !slices.ContainsFunc(e.roots, func(r guard.SessionPolicy) bool { return sameRoots(r, roots) }) {
			e.roots = append(e.roots, roots)
		}
	}
}

// sameRoots reports whether a and b name the same workspace and read-only
// roots.
func sameRoots(a, b guard.SessionPolicy) bool {
	return slices.Equal(a.Workspace, b.Workspace) && slices.Equal(a.ReadOnly, b.ReadOnly)
}

// first is the entry of the first agent process in lineage.
func (a *agentSet) first(lineage []LineageEntry) *agentEntry {
	for _, e := range lineage {
		if entry, ok := a.procs[e.Proc]; ok {
			return entry
		}
	}
	return nil
}

// holds returns the sessions of the first agent process in lineage.
func (a *agentSet) holds(lineage []LineageEntry) (string, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	e := a.first(lineage)
	if e == nil {
		return "", false
	}
	ids := make([]string, 0, len(e.sessions))
	for id := range e.sessions {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return strings.Join(ids, ","), true
}

// holdsSession reports whether the first agent process in lineage acted
// for session id.
func (a *agentSet) holdsSession(lineage []LineageEntry, id string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	e := a.first(lineage)
	if e == nil {
		return false
	}
	_, ok := e.sessions[id]
	return ok
}

// rootsOf returns the distinct roots of the sessions the first agent
// process in lineage acted for, and whether there is one.
func (a *agentSet) rootsOf(lineage []LineageEntry) ([]guard.SessionPolicy, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	e := a.first(lineage)
	if e == nil {
		return nil, false
	}
	return slices.Clone(e.roots), true
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
	_, now, _, err := ProcInfo(p.PID)
	return err == nil && now.Start == p.Start
}
