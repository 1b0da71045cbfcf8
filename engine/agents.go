package engine

import (
	"slices"
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
	// groups are the process groups confined commands run in
	// (groups.go): what a detach takes out of an agent's lineage stays
	// in one of them.
	groups *groupSet
}

// agentEntry is what one agent process acted for: its sessions, and the
// distinct roots they had (an agent opens session after session over the
// same project, so the roots stay few however many sessions it has).
type agentEntry struct {
	sessions map[string]struct{}
	// latest is the session it acted for last: what a refusal names, at
	// no cost however many sessions the process has opened.
	latest string
	roots  []guard.SessionPolicy
}

func newAgentSet() *agentSet { return &agentSet{procs: map[Proc]*agentEntry{}, groups: newGroupSet()} }

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
		e.add(session, roots)
	}
}

// add records that the entry's process acted for session, whose roots
// are roots.
func (e *agentEntry) add(session string, roots guard.SessionPolicy) {
	e.sessions[session] = struct{}{}
	e.latest = session
	if !slices.ContainsFunc(e.roots, func(r guard.SessionPolicy) bool { return sameRoots(r, roots) }) {
		e.roots = append(e.roots, roots)
	}
}

// sameRoots reports whether a and b name the same workspace and read-only
// roots.
func sameRoots(a, b guard.SessionPolicy) bool {
	return slices.Equal(a.Workspace, b.Workspace) && slices.Equal(a.ReadOnly, b.ReadOnly)
}

// first is the entry of the first agent process in lineage, else of the
// first process in lineage that runs in a confined command's process
// group (groups.go): a detach cuts the lineage, never the group.
func (a *agentSet) first(lineage []LineageEntry) *agentEntry {
	for _, e := range lineage {
		if entry, ok := a.procs[e.Proc]; ok {
			return entry
		}
	}
	return a.groups.first(lineage)
}

// holds returns the session the first agent process in lineage acted
// for last, and how many others it acted for. Constant time: every
// person-only call asks, and an agent may have opened thousands.
func (a *agentSet) holds(lineage []LineageEntry) (latest string, others int, ok bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	e := a.first(lineage)
	if e == nil {
		return "", 0, false
	}
	return e.latest, len(e.sessions) - 1, true
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

// prune forgets the processes that are gone, and the process groups
// that emptied, so the set does not grow with every hook process ever
// seen.
func (a *agentSet) prune(alive func(Proc) bool) {
	a.mu.Lock()
	a.groups.prune()
	a.mu.Unlock()
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

// marks reports whether an agent process itself is in lineage (not only
// a process of a confined command's group).
func (a *agentSet) marks(lineage []LineageEntry) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, e := range lineage {
		if _, ok := a.procs[e.Proc]; ok {
			return true
		}
	}
	return false
}
