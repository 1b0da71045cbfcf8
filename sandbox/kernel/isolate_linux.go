package kernel

import (
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The isolation filter closes, at the Landlock-only level, what the mount
// view and its PID namespace close at the full level, with a plain
// seccomp filter: it decides on system call numbers and integer
// arguments alone, never on memory the command could change after the
// check, so there is nothing to race.
//
//   - socket(AF_UNIX, …) fails with EACCES. Landlock (up to ABI 8) does
//     not govern connecting to a Unix socket by path, and no view hides
//     pathgrant's socket, the D-Bus session bus (whose systemd would start
//     anything unconfined), tmux's or X11's. Refusing the socket itself
//     holds against every way of naming one: a hard link, a symlink,
//     /proc/self/root, a relative path, the abstract namespace. Pairs made
//     by socketpair(2) stay: they reach only the command's own processes.
//   - setsid and setpgid fail with EPERM, so every process the command
//     starts, detached by a double fork or not, stays in the process group
//     the front end ran it in, which the daemon recorded as the session's
//     agent's (engine/groups.go): the lineage a detach cuts is no way out.
//   - io_uring_setup fails with EPERM: a ring makes sockets without the
//     socket system call (IORING_OP_SOCKET).
//   - a system call of another ABI (i386 or x32 on amd64, arm32 on arm64)
//     kills the process: it would reach the same calls under numbers this
//     filter does not know.
//
// Installed last, after no_new_privs and the supervisor's filter, the
// command and everything it starts inherit it and can never drop it.

// isolateArch is the audit architecture of the running binary's system
// calls, and whether the filter knows it.
func isolateArch() (uint32, bool) {
	switch runtime.GOARCH {
	case "amd64":
		return unix.AUDIT_ARCH_X86_64, true
	case "arm64":
		return unix.AUDIT_ARCH_AARCH64, true
	}
	return 0, false
}

// x32Bit marks an x32 system call on amd64 (__X32_SYSCALL_BIT).
const x32Bit = 0x40000000

// BPF opcodes and seccomp_data offsets (linux/filter.h, linux/seccomp.h:
// nr, arch, then the arguments, low word first on these little-endian
// machines).
const (
	bpfLd   = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
	bpfJeq  = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
	bpfJge  = unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K
	bpfRet  = unix.BPF_RET | unix.BPF_K
	dataNr  = 0
	dataArc = 4
	dataArg = 16
)

// isolateProgram is the filter for the audit architecture arch.
func isolateProgram(arch uint32) []unix.SockFilter {
	ret := func(k uint32) unix.SockFilter { return unix.SockFilter{Code: bpfRet, K: k} }
	ld := func(off uint32) unix.SockFilter { return unix.SockFilter{Code: bpfLd, K: off} }
	jeq := func(k uint32, jt, jf uint8) unix.SockFilter {
		return unix.SockFilter{Code: bpfJeq, K: k, Jt: jt, Jf: jf}
	}
	kill := ret(unix.SECCOMP_RET_KILL_PROCESS)
	allow := ret(unix.SECCOMP_RET_ALLOW)
	eperm := ret(unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM))
	return []unix.SockFilter{
		ld(dataArc),
		jeq(arch, 1, 0),
		kill,
		ld(dataNr),
		{Code: bpfJge, K: x32Bit, Jt: 0, Jf: 1}, // no arm64 call is numbered that high either
		kill,
		jeq(uint32(unix.SYS_SETSID), 4, 0),
		jeq(uint32(unix.SYS_SETPGID), 3, 0),
		jeq(uint32(unix.SYS_IO_URING_SETUP), 2, 0),
		jeq(uint32(unix.SYS_SOCKET), 2, 0),
		allow,
		eperm,
		ld(dataArg), // socket's domain, an int
		jeq(unix.AF_UNIX, 0, 1),
		ret(unix.SECCOMP_RET_ERRNO | uint32(unix.EACCES)),
		allow,
	}
}

// installIsolation puts the isolation filter on the calling thread, which
// has no_new_privs set.
func installIsolation() error {
	arch, ok := isolateArch()
	if !ok {
		return fmt.Errorf("isolate: no seccomp filter for %s: not running the command unisolated", runtime.GOARCH)
	}
	p := isolateProgram(arch)
	prog := unix.SockFprog{Len: uint16(len(p)), Filter: &p[0]}
	if _, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(&prog))); errno != 0 {
		return fmt.Errorf("isolate: seccomp filter: %w", errno)
	}
	return nil
}
