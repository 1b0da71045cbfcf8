package frontend

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// getTermios is the ioctl that reads a terminal's settings.
const getTermios = unix.TCGETS

// holdPair is the socket pair a held command's inner step sends its
// seccomp listener over (sequenced packets, close-on-exec).
func holdPair() ([2]int, error) {
	return unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
}

// diesWithUs makes the sandbox's first process (bubblewrap, or the inner
// step) get SIGKILL when this front end dies. bubblewrap's own
// --die-with-parent asks for the same only once it runs: a front end
// killed between the fork and that request left the sandbox running, its
// command still writing after the daemon's check of the workspace. Go
// sets it in the child before exec and kills the child itself when the
// parent is already gone. The signal follows the thread that forked, so
// start keeps its goroutine on that thread until the sandbox is waited.
func diesWithUs(a *syscall.SysProcAttr) *syscall.SysProcAttr {
	a.Pdeathsig = syscall.SIGKILL
	return a
}
