package frontend

import (
	"errors"
	"syscall"

	"golang.org/x/sys/unix"
)

// getTermios is the ioctl that reads a terminal's settings.
const getTermios = unix.TIOCGETA

// holdPair fails: opens are held only on Linux (seccomp user
// notification), and the daemon never prepares a hold on macOS.
func holdPair() ([2]int, error) {
	return [2]int{}, errors.New("held opens need Linux")
}

// diesWithUs leaves a unchanged: macOS has no parent-death signal, and
// the Seatbelt sandbox is its own session, killed whole by the front end.
func diesWithUs(a *syscall.SysProcAttr) *syscall.SysProcAttr { return a }
