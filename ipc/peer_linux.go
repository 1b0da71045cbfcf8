package ipc

import (
	"errors"
	"fmt"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"

	"pathgrant/engine"
)

// peerCred is the kernel's SO_PEERCRED for the connection.
func peerCred(raw syscall.RawConn) (Peer, error) {
	var cred *unix.Ucred
	var credErr error
	if err := raw.Control(func(fd uintptr) {
		cred, credErr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return Peer{}, fmt.Errorf("peer credentials: %w", err)
	}
	if credErr != nil {
		return Peer{}, fmt.Errorf("peer credentials: %w", credErr)
	}
	return Peer{PID: cred.Pid, UID: cred.Uid, GID: cred.Gid}, nil
}

// pinPeer is the peer process's start time, read from /proc and checked
// against the kernel's pin: the pid was read from /proc, and the process
// the socket pinned (SO_PEERPIDFD) was still there (not reaped)
// afterwards, so the pid could not have named another process at the
// time of the read. 0 means the peer is gone or cannot be pinned.
func pinPeer(raw syscall.RawConn, pid int32) uint64 {
	pidfd, err := peerPidfd(raw)
	if err != nil {
		return 0
	}
	defer unix.Close(pidfd)
	_, proc, _, err := engine.ProcInfo(pid)
	if err != nil || !pidfdAlive(pidfd) {
		return 0
	}
	return proc.Start
}

// peerPidfd is a pidfd for the process that connected (SO_PEERPIDFD).
func peerPidfd(raw syscall.RawConn) (int, error) {
	pidfd, sockErr := -1, error(nil)
	if err := raw.Control(func(fd uintptr) {
		pidfd, sockErr = unix.GetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_PEERPIDFD)
	}); err != nil {
		return -1, fmt.Errorf("peer pidfd: %w", err)
	}
	if sockErr != nil {
		return -1, fmt.Errorf("peer pidfd: %w", sockErr)
	}
	return pidfd, nil
}

// pidfdAlive reports whether the process behind pidfd has not been
// reaped: signal 0 checks without sending anything, and EPERM still
// means the process exists.
func pidfdAlive(pidfd int) bool {
	err := unix.PidfdSendSignal(pidfd, 0, nil, 0)
	return err == nil || errors.Is(err, unix.EPERM)
}

// peerPidfdWorks reports, once per process, whether the kernel hands out
// SO_PEERPIDFD (Linux 6.5 and later), tried on a socket pair.
var peerPidfdWorks = sync.OnceValue(func() bool {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer unix.Close(fds[0])
	defer unix.Close(fds[1])
	pidfd, err := unix.GetsockoptInt(fds[0], unix.SOL_SOCKET, unix.SO_PEERPIDFD)
	if err != nil {
		return false
	}
	unix.Close(pidfd)
	return true
})
