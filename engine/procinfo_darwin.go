package engine

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// readProcStat asks the kernel for the process's kinfo_proc through the
// kern.proc.pid sysctl (macOS has no /proc): one call, no descriptor.
func readProcStat(pid int32) (procStat, error) {
	if pid <= 0 {
		return procStat{}, fmt.Errorf("process %d: %w", pid, unix.ESRCH)
	}
	b, err := unix.SysctlRaw("kern.proc.pid", int(pid))
	if err != nil {
		return procStat{}, fmt.Errorf("sysctl kern.proc.pid.%d: %w", pid, err)
	}
	st, err := parseKinfoProc(pid, b)
	if err != nil {
		return procStat{}, fmt.Errorf("sysctl kern.proc.pid.%d: %w", pid, err)
	}
	return st, nil
}
