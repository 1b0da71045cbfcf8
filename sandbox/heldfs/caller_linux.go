//go:build linux

package heldfs

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// maxWalk bounds the walk from a caller up to its sandbox's bubblewrap.
const maxWalk = 64

// members tells a command's own sandbox processes from every other
// caller. A sandbox is a PID namespace and a mount namespace that
// bubblewrap, a child of the command's holder, made together; a caller
// must be in both. Each sandbox admitted is remembered by its PID
// namespace with its mount namespace and a pidfd of its anchor
// (bubblewrap outside the namespace): the namespace lives as long as the
// anchor does, so a namespace number reused after it died is never
// admitted by the memory of the old one, and a hit costs two readlinks
// and a poll.
//
// What this cannot tell apart: a process of the same user that joins
// both namespaces with setns (nsenter -p -m) is, to the kernel, inside
// the sandbox, as one that ptraces a sandboxed process is; it gains
// nothing the person's own uid could not read directly. One that joins
// the PID namespace alone, and stays in the person's mount namespace, is
// refused, and so is its orphan (reparented to bubblewrap's inner init).
type members struct {
	holder Holder
	bwrap  string
	selfNS uint64

	mu    sync.Mutex
	known map[uint64]sandboxNS
	shut  bool
}

// sandboxNS is one admitted sandbox.
type sandboxNS struct {
	mnt    uint64 // its mount namespace
	anchor int    // a pidfd of bubblewrap outside it
}

func newMembers(holder Holder, bwrap string, selfNS uint64) *members {
	return &members{holder: holder, bwrap: bwrap, selfNS: selfNS, known: map[uint64]sandboxNS{}}
}

// maxSandboxes bounds the sandboxes one command's members remember (a
// command's bubblewrap makes one; a walk past the bound is not cached).
const maxSandboxes = 8

// admits reports whether the process pid (as the kernel reports a FUSE
// caller, in the daemon's PID namespace) is in the command's sandbox.
func (m *members) admits(pid uint32) bool {
	if pid == 0 {
		return false
	}
	pidns, err := nsOf(int32(pid), "pid")
	if err != nil || pidns == m.selfNS {
		return false
	}
	mnt, err := nsOf(int32(pid), "mnt")
	if err != nil {
		return false
	}
	if sb, ok := m.lookup(pidns); ok {
		return sb.mnt == mnt
	}
	sb, ok := m.walk(int32(pid))
	if !ok {
		return false
	}
	m.remember(pidns, sb)
	return sb.mnt == mnt
}

// lookup returns the sandbox admitted in pidns while its anchor runs; one
// whose anchor ended is forgotten (its namespace number may be reused).
func (m *members) lookup(pidns uint64) (sandboxNS, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	sb, ok := m.known[pidns]
	if ok && !running(sb.anchor) {
		unix.Close(sb.anchor)
		delete(m.known, pidns)
		return sandboxNS{}, false
	}
	return sb, ok
}

// remember keeps sb, forgetting sandboxes that ended when it is full;
// unless the members are shut or still full (its pidfd is then closed:
// the next call walks again).
func (m *members) remember(pidns uint64, sb sandboxNS) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.known) >= maxSandboxes {
		for ns, old := range m.known {
			if !running(old.anchor) {
				unix.Close(old.anchor)
				delete(m.known, ns)
			}
		}
	}
	if _, dup := m.known[pidns]; dup || m.shut || len(m.known) >= maxSandboxes {
		unix.Close(sb.anchor)
		return
	}
	m.known[pidns] = sb
}

// close forgets every sandbox (the command ended).
func (m *members) close() {
	m.mu.Lock()
	defer m.mu.Unlock()
	for ns, sb := range m.known {
		unix.Close(sb.anchor)
		delete(m.known, ns)
	}
	m.shut = true
}

// walk goes up from pid to the first process in the daemon's PID
// namespace: it must be bubblewrap, a child of the holder, and becomes
// the sandbox's anchor; the process below it (bubblewrap's inner init)
// names the sandbox's mount namespace.
func (m *members) walk(pid int32) (sandboxNS, bool) {
	inner := pid
	for range maxWalk {
		st, err := readStat(pid)
		if err != nil {
			return sandboxNS{}, false
		}
		ns, err := nsOf(pid, "pid")
		if err != nil {
			return sandboxNS{}, false
		}
		if ns == m.selfNS {
			return m.anchor(pid, st, inner)
		}
		inner, pid = pid, st.ppid
	}
	return sandboxNS{}, false
}

// anchor checks that pid (with stat st), the first process outside the
// sandbox, is bubblewrap started by the holder, and pins it with a pidfd
// (checked again after the pidfd is opened, so a pid reused in between
// is not pinned); inner is its child inside.
func (m *members) anchor(pid int32, st procStat, inner int32) (sandboxNS, bool) {
	if pid == inner || m.bwrap == "" || st.ppid != m.holder.PID {
		return sandboxNS{}, false
	}
	if parent, err := readStat(st.ppid); err != nil || parent.start != m.holder.Start {
		return sandboxNS{}, false
	}
	if exe, err := os.Readlink("/proc/" + strconv.Itoa(int(pid)) + "/exe"); err != nil || exe != m.bwrap {
		return sandboxNS{}, false
	}
	mnt, err := nsOf(inner, "mnt")
	if err != nil {
		return sandboxNS{}, false
	}
	fd, err := unix.PidfdOpen(int(pid), 0)
	if err != nil {
		return sandboxNS{}, false
	}
	if again, err := readStat(pid); err != nil || again.start != st.start {
		unix.Close(fd)
		return sandboxNS{}, false
	}
	return sandboxNS{mnt: mnt, anchor: fd}, true
}

// running reports whether the process pidfd names still runs.
func running(pidfd int) bool {
	fds := []unix.PollFd{{Fd: int32(pidfd), Events: unix.POLLIN}}
	for {
		n, err := unix.Poll(fds, 0)
		if err != unix.EINTR { // the runtime's own signals interrupt it
			return err == nil && n == 0
		}
	}
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

// nsOf is the inode of pid's namespace of kind ("pid", "mnt"), read
// from its link ("pid:[N]"); pid 0 is this process.
func nsOf(pid int32, kind string) (uint64, error) {
	name := "self"
	if pid > 0 {
		name = strconv.Itoa(int(pid))
	}
	link, err := os.Readlink("/proc/" + name + "/ns/" + kind)
	if err != nil {
		return 0, err
	}
	n, ok := strings.CutPrefix(link, kind+":[")
	if n, ok2 := strings.CutSuffix(n, "]"); ok && ok2 {
		return strconv.ParseUint(n, 10, 64)
	}
	return 0, errors.New("unexpected namespace link " + link)
}
