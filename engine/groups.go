package engine

import (
	"errors"
	"fmt"
	"syscall"

	"pathgrant/guard"
)

// groupSet remembers the process groups that confined commands run in
// at the Landlock-only level, each with its session. It is what keeps a
// hook-only session's detached processes that agent's.
//
// There, no PID namespace holds what a command starts: a double fork
// reparents a watcher to init (or to whichever subreaper is above), the
// agent leaves its lineage, and it would be taken for the person on a
// person-only route. pathgrant-confine and `pathgrant exec` run the
// command in their own process group (never a group of its own), and
// the command's isolation filter (sandbox/kernel) refuses setsid and
// setpgid, so everything the command ever starts stays in that group,
// however it detaches. The daemon records the group when it prepares the
// command (Engine.Exec), from the front end's own process, before the
// command exists: no report to race, and nothing to skip by killing the
// front end. A group keeps its number while any process is in it (the
// kernel hands out no pid that is still some group's id), so a group id
// names this group until it empties.
//
// Why not the alternatives: a subreaper in the front end dies with the
// front end (a client's SIGKILL to its process group); a session id is
// shared with the person's terminal when the agent runs in it; a cgroup
// needs a delegated hierarchy that a plain login or a container may not
// have. The group is recorded at any level for the daemon's own tool
// calls as well, which run in a group of their own.
//
// What it costs: the front end's group also holds the agent's shell, and
// when the agent runs as a terminal's foreground job, the agent itself:
// all of them agents already. A group that emptied and whose number came
// back as a new group before the entry was forgotten would refuse the
// person (fail closed); the entry remembers the group's leader to catch
// that, and is forgotten once the group is empty.
//
// It lives in agentSet and is guarded by its mutex: a group's entry is
// an agent process's entry, read by the same lookups (agentSet.first).
type groupSet struct {
	groups map[int32]groupEntry
}

// groupEntry is one recorded group: what it acted for, as an agent
// process's entry (its sessions and their roots, so a process in it is
// bounded as the agent is: agentParent, agentBounds), and its leader
// (the process whose pid is the group's id) as it was when first
// recorded, Start 0 if the leader had already exited.
type groupEntry struct {
	*agentEntry
	leader Proc
}

func newGroupSet() *groupSet { return &groupSet{groups: map[int32]groupEntry{}} }

// addGroup records group as one that runs a confined command of
// session, whose roots are roots.
func (a *agentSet) addGroup(group int32, session string, roots guard.SessionPolicy) {
	if group <= 1 {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	g := a.groups
	e, ok := g.groups[group]
	if !ok {
		e = groupEntry{agentEntry: &agentEntry{sessions: map[string]struct{}{}}, leader: Proc{PID: group}}
		if _, p, _, err := ProcInfo(group); err == nil {
			e.leader = p
		}
		g.groups[group] = e
	}
	e.add(session, roots)
}

// first is the entry of the first process of lin whose process group was
// recorded and is still the same group (agentSet.mu held).
func (g *groupSet) first(lin []LineageEntry) *agentEntry {
	for _, e := range lin {
		if entry, ok := g.groups[e.Group]; ok && e.Group > 1 && sameGroup(e.Group, entry.leader) {
			return entry.agentEntry
		}
	}
	return nil
}

// sameGroup reports whether the group with id group may still be the one
// recorded with leader: the leader runs still, or no process has the
// group's number as its pid (a process that has it now was given it once
// the recorded group had emptied). In doubt it is the same: the caller
// is then taken for an agent.
func sameGroup(group int32, leader Proc) bool {
	_, p, _, err := ProcInfo(group)
	if err != nil {
		return true
	}
	return leader.Start != 0 && p.Start == leader.Start
}

// prune forgets the groups no process is in any more, and those whose
// number a new process has taken (agentSet.mu held).
func (g *groupSet) prune() {
	for id, e := range g.groups {
		if !groupExists(id) || !sameGroup(id, e.leader) {
			delete(g.groups, id)
		}
	}
}

// groupExists reports whether any process is in the group: signal 0 to
// the group checks without sending; EPERM means a process of another
// user is in it, so it exists.
func groupExists(group int32) bool {
	err := syscall.Kill(-int(group), 0)
	return err == nil || !errors.Is(err, syscall.ESRCH)
}

// procGroup is the process group of p, which must still be the process
// with p's start time.
func procGroup(p Proc) (int32, error) {
	st, err := readProcStat(p.PID)
	switch {
	case err != nil:
		return 0, err
	case p.Start != 0 && st.start != p.Start:
		return 0, fmt.Errorf("process %d has exited", p.PID)
	case st.group <= 0:
		return 0, fmt.Errorf("process %d: no process group known", p.PID)
	}
	return st.group, nil
}
