//go:build linux && arm64

package supervise

import "golang.org/x/sys/unix"

// auditArch is the architecture whose system calls the filter traps;
// another one (arm32 compat) continues to the kernel, which gains a
// command nothing: the supervisor only ever adds descriptors.
const auditArch = unix.AUDIT_ARCH_AARCH64

// openCalls are this architecture's opens (it has no open(2)), with the
// argument that holds the flags (-1: openat2, whose flags are in memory).
var openCalls = []openCall{
	{nr: unix.SYS_OPENAT, dirArg: 0, pathArg: 1, flagsArg: 2},
	{nr: unix.SYS_OPENAT2, dirArg: 0, pathArg: 1, flagsArg: -1},
}
