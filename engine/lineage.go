package engine

import "sync"

// Proc identifies one process for its whole life: a pid alone is reused,
// a pid with its start time is not. Start is what the kernel reports
// (procinfo_linux.go: clock ticks since boot; procinfo_darwin.go:
// microseconds since the epoch), only ever compared with another Start
// read on the same machine; 0 means unknown.
type Proc struct {
	PID   int32
	Start uint64
}

// maxLineage bounds the walk up the process tree.
const maxLineage = 64

// LineageEntry is one process on the way from a peer up to init, and
// its process group (0 where not known).
type LineageEntry struct {
	Proc
	Comm  string
	Group int32
}

// Lineage is one peer's process lineage, read from the kernel (ProcInfo)
// only as far up as a question needs: which agent sent a check needs two
// or three levels, whether an approver runs under an agent needs them
// all. A walk that cannot finish (a process gone, its entry unreadable,
// the peer's pid now naming another process, a lineage deeper than
// maxLineage) is failed: the callers that guard decisions then treat the
// peer as an agent.
type Lineage struct {
	mu     sync.Mutex
	next   int32  // the pid to read next; 0 when done
	start  uint64 // the peer's start time seen at accept; 0: unknown
	got    []LineageEntry
	failed bool
}

// PeerLineage starts a lazy walk up from a peer whose start time was
// pinned to its connection (connInfo.pinnedStart; 0 when it could not be):
// if pid names another process by the time the walk starts, the lineage
// is failed.
func PeerLineage(pid int32, start uint64) *Lineage {
	return &Lineage{next: pid, start: start, failed: start == 0}
}

// FixedLineage is a lineage already known (tests, and Config.Lineage); a
// reader's error makes it failed.
func FixedLineage(l []LineageEntry, err error) *Lineage {
	return &Lineage{got: l, failed: err != nil}
}

// upTo reads ancestors until stop says enough, or init is reached.
func (l *Lineage) upTo(stop func([]LineageEntry) bool) []LineageEntry {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for l.next > 1 && len(l.got) < maxLineage && !stop(l.got) {
		st, err := readProcStat(l.next)
		if err != nil || (len(l.got) == 0 && l.start != 0 && st.start != l.start) {
			l.failed, l.next = true, 0
			break
		}
		l.got = append(l.got, LineageEntry{Proc: Proc{PID: l.next, Start: st.start}, Comm: st.comm, Group: st.group})
		l.next = st.ppid
	}
	if l.next > 1 && len(l.got) >= maxLineage {
		l.failed = true
	}
	if l.next <= 1 || len(l.got) >= maxLineage {
		l.next = 0
	}
	return l.got
}

// Peer is the process at the other end of the connection, when it could
// be read and is still the one that connected.
func (l *Lineage) Peer() (Proc, bool) {
	got := l.upTo(func(got []LineageEntry) bool { return len(got) >= 1 })
	if len(got) == 0 {
		return Proc{}, false
	}
	return got[0].Proc, true
}

// Whole is the whole lineage, and whether it could be read to the end.
func (l *Lineage) Whole() ([]LineageEntry, bool) {
	if l == nil {
		return nil, false
	}
	got := l.all()
	l.mu.Lock()
	defer l.mu.Unlock()
	return got, !l.failed
}

// all is the whole lineage up to (not including) init.
func (l *Lineage) all() []LineageEntry {
	return l.upTo(func([]LineageEntry) bool { return false })
}

// chain is agentChain of the lineage, read only as far as it needs.
func (l *Lineage) chain() []Proc {
	return agentChain(l.upTo(func(got []LineageEntry) bool {
		n := len(got)
		return n >= 2 && !shellNames[got[n-1].Comm]
	}))
}

// shellNames are the interpreters agent clients run hooks through; the
// agent is the first ancestor of a hook that is not one of them.
var shellNames = map[string]bool{"sh": true, "bash": true, "dash": true, "zsh": true, "fish": true, "ksh": true, "env": true}

// agentChain returns the processes that act for the agent behind a
// request: the peer (a hook), the shells between it and the agent, and the
// agent itself. These may never approve or revoke.
func agentChain(lin []LineageEntry) []Proc {
	var out []Proc
	for i, e := range lin {
		out = append(out, e.Proc)
		if i > 0 && !shellNames[e.Comm] {
			break
		}
	}
	return out
}
