package ipc

import "golang.org/x/sys/unix"

// fileLimitCeiling is the hard limit capped at kern.maxfilesperproc: the
// hard limit is often unlimited on macOS, and a soft limit above the
// per-process maximum is refused (EINVAL), which would leave a warning at
// every start for a limit Go's runtime has already raised that far.
func fileLimitCeiling(hard uint64) uint64 {
	n, err := unix.SysctlUint32("kern.maxfilesperproc")
	if err != nil {
		return hard
	}
	return min(hard, uint64(n))
}
