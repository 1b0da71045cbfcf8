package engine

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"syscall"
)

// The macOS kernel describes a process as a struct kinfo_proc
// (sys/sysctl.h): a struct extern_proc (sys/proc.h, 296 bytes), then a
// struct eproc (352 bytes). The layout is LP64 and little-endian on both
// arm64 and amd64 Macs. The offsets of the fields pathgrant reads are
// worked out from the C definitions and held against x/sys's
// unix.KinfoProc by kinfoproc_darwin_test.go; parsing the bytes here
// rather than casting them keeps the parser testable on Linux.
const (
	kinfoProcSize  = 648
	kpStartSecOff  = 0   // kp_proc.p_un.__p_starttime.tv_sec: int64
	kpStartUsecOff = 8   // kp_proc.p_un.__p_starttime.tv_usec: int32
	kpStatOff      = 36  // kp_proc.p_stat: char
	kpPidOff       = 40  // kp_proc.p_pid: int32
	kpCommOff      = 243 // kp_proc.p_comm: char[MAXCOMLEN+1]
	kpCommLen      = 17
	kpPpidOff      = 296 + 264 // kp_eproc.e_ppid: int32
)

// The process states of p_stat (sys/proc.h): SIDL is being created, SZOMB
// has exited and waits to be reaped.
const (
	kpStateIdle   = 1
	kpStateZombie = 5
)

// parseKinfoProc reads the kern.proc.pid.<pid> sysctl's answer. The
// kernel answers a pid nobody holds with no bytes (ESRCH here); anything
// but one whole kinfo_proc of that pid, with a known state, a parent and
// a start time, is refused rather than guessed at. The start time becomes
// microseconds since the epoch: it is set once, at fork, so it names the
// process as Linux's start ticks do, and is never 0.
func parseKinfoProc(pid int32, b []byte) (procStat, error) {
	switch {
	case len(b) == 0:
		return procStat{}, fmt.Errorf("process %d: %w", pid, syscall.ESRCH)
	case len(b) != kinfoProcSize:
		return procStat{}, fmt.Errorf("process %d: kinfo_proc of %d bytes, want %d", pid, len(b), kinfoProcSize)
	}
	le := binary.LittleEndian
	if got := int32(le.Uint32(b[kpPidOff:])); got != pid {
		return procStat{}, fmt.Errorf("process %d: kinfo_proc names pid %d", pid, got)
	}
	state := b[kpStatOff]
	if state < kpStateIdle || state > kpStateZombie {
		return procStat{}, fmt.Errorf("process %d: unknown state %d", pid, state)
	}
	ppid := int32(le.Uint32(b[kpPpidOff:]))
	if ppid < 0 {
		return procStat{}, fmt.Errorf("process %d: parent %d", pid, ppid)
	}
	sec, usec := int64(le.Uint64(b[kpStartSecOff:])), int32(le.Uint32(b[kpStartUsecOff:]))
	if sec <= 0 || usec < 0 || usec >= 1e6 {
		return procStat{}, fmt.Errorf("process %d: start time %d.%06d", pid, sec, usec)
	}
	comm, _, ok := bytes.Cut(b[kpCommOff:kpCommOff+kpCommLen], []byte{0})
	if !ok {
		return procStat{}, fmt.Errorf("process %d: command name not terminated", pid)
	}
	return procStat{ppid: ppid, start: uint64(sec)*1e6 + uint64(usec), comm: string(comm),
		zombie: state == kpStateZombie}, nil
}
