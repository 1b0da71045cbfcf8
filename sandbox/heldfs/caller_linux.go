//go:build linux

package heldfs

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"strings"
	"sync"
)

// maxWalk bounds the walk from a caller up to its sandbox's bubblewrap.
const maxWalk = 64

// members tells a command's own sandbox processes from every other
// caller, remembering each PID namespace it admitted with the process
// that anchors it (bubblewrap outside the namespace): a namespace lives
// as long as that process does, so a hit is checked again by its start
// time alone, and a namespace number reused after it died is not
// admitted by the memory of the old one.
type members struct {
	holder Holder
	bwrap  string
	selfNS uint64

	mu    sync.Mutex
	known map[uint64]Holder
}

func newMembers(holder Holder, bwrap string, selfNS uint64) *members {
	return &members{holder: holder, bwrap: bwrap, selfNS: selfNS, known: map[uint64]Holder{}}
}

// admits reports whether the process pid (as the kernel reports a FUSE
// caller, in the daemon's PID namespace) is in the command's sandbox.
func (m *members) admits(pid uint32) bool {
	if pid == 0 {
		return false
	}
	ns, err := pidNS(int32(pid))
	if err != nil || ns == m.selfNS {
		return false
	}
	m.mu.Lock()
	anchor, ok := m.known[ns]
	m.mu.Unlock()
	if ok && alive(anchor) {
		return true
	}
	anchor, ok = m.walk(int32(pid))
	if ok {
		m.mu.Lock()
		m.known[ns] = anchor
		m.mu.Unlock()
	}
	return ok
}

// walk goes up from pid to the first process in the daemon's PID
// namespace: it must be bubblewrap, a child of the holder, and is
// returned as the namespace's anchor.
func (m *members) walk(pid int32) (Holder, bool) {
	for range maxWalk {
		st, err := readStat(pid)
		if err != nil {
			return Holder{}, false
		}
		ns, err := pidNS(pid)
		if err != nil {
			return Holder{}, false
		}
		if ns == m.selfNS {
			parent, err := readStat(st.ppid)
			exe, xerr := os.Readlink("/proc/" + strconv.Itoa(int(pid)) + "/exe")
			ok := err == nil && xerr == nil && m.bwrap != "" && exe == m.bwrap &&
				st.ppid == m.holder.PID && parent.start == m.holder.Start
			return Holder{PID: pid, Start: st.start}, ok && alive(Holder{PID: pid, Start: st.start})
		}
		pid = st.ppid
	}
	return Holder{}, false
}

// Self is this process as a Holder: the daemon, for its own tool
// commands' bubblewrap.
func Self() (Holder, error) {
	pid := int32(os.Getpid())
	st, err := readStat(pid)
	if err != nil {
		return Holder{}, err
	}
	return Holder{PID: pid, Start: st.start}, nil
}

// alive reports whether h still runs (its pid names the same process).
func alive(h Holder) bool {
	st, err := readStat(h.PID)
	return err == nil && st.start == h.Start
}

// procStat is what the walk reads of /proc/PID/stat.
type procStat struct {
	ppid  int32
	start uint64
}

// readStat reads pid's parent and start time; the command name, in
// parentheses, may hold ") ", so fields count from the last ')'.
func readStat(pid int32) (procStat, error) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(int(pid)) + "/stat")
	if err != nil {
		return procStat{}, err
	}
	end := bytes.LastIndexByte(data, ')')
	if end < 0 {
		return procStat{}, errors.New("malformed /proc stat")
	}
	f := bytes.Fields(data[end+1:])
	if len(f) < 20 {
		return procStat{}, errors.New("malformed /proc stat")
	}
	ppid, err1 := strconv.ParseInt(string(f[1]), 10, 32)
	start, err2 := strconv.ParseUint(string(f[19]), 10, 64)
	if err1 != nil || err2 != nil {
		return procStat{}, errors.New("malformed /proc stat")
	}
	return procStat{ppid: int32(ppid), start: start}, nil
}

// pidNS is the inode of pid's PID namespace ("pid:[N]").
func pidNS(pid int32) (uint64, error) {
	name := "self"
	if pid > 0 {
		name = strconv.Itoa(int(pid))
	}
	link, err := os.Readlink("/proc/" + name + "/ns/pid")
	if err != nil {
		return 0, err
	}
	n, ok := strings.CutPrefix(link, "pid:[")
	if n, ok2 := strings.CutSuffix(n, "]"); ok && ok2 {
		return strconv.ParseUint(n, 10, 64)
	}
	return 0, errors.New("unexpected namespace link " + link)
}
