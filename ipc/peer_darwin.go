package ipc

import (
	"fmt"
	"syscall"

	"golang.org/x/sys/unix"
)

// xucredVersion is XUCRED_VERSION (sys/ucred.h), the only layout of
// struct xucred the kernel hands out.
const xucredVersion = 0

// peerCred is the kernel's LOCAL_PEERCRED (the peer's effective uid and
// groups, the first of which is its effective gid, as they were at
// connect()) and LOCAL_PEERPID for the connection.
//
// macOS has no pidfd, so a peer cannot be pinned as on Linux: newConnInfo
// reads its start time at accept instead (peerPidfdWorks is false), and
// a window remains. LOCAL_PEERPID names the process that last used the
// peer's end of the socket (the connecting process, unless it handed the
// socket on); if that process exits and its pid is handed to another
// before the start time is read at accept, the lineage read is the new
// process's. macOS hands out pids in increasing order and wraps only at
// 99,999, so that needs every pid to be used up within the moment
// between connect() and accept(); and a lineage read later, against the
// start time, still fails closed for a pid reused after accept.
func peerCred(raw syscall.RawConn) (Peer, error) {
	var cred *unix.Xucred
	var pid int
	var credErr, pidErr error
	if err := raw.Control(func(fd uintptr) {
		cred, credErr = unix.GetsockoptXucred(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
		pid, pidErr = unix.GetsockoptInt(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERPID)
	}); err != nil {
		return Peer{}, fmt.Errorf("peer credentials: %w", err)
	}
	switch {
	case credErr != nil:
		return Peer{}, fmt.Errorf("peer credentials: LOCAL_PEERCRED: %w", credErr)
	case pidErr != nil:
		return Peer{}, fmt.Errorf("peer credentials: LOCAL_PEERPID: %w", pidErr)
	case cred.Version != xucredVersion || cred.Ngroups < 1 || int(cred.Ngroups) > len(cred.Groups):
		return Peer{}, fmt.Errorf("peer credentials: unexpected xucred (version %d, %d groups)", cred.Version, cred.Ngroups)
	case pid <= 0:
		return Peer{}, fmt.Errorf("peer credentials: LOCAL_PEERPID %d", pid)
	}
	return Peer{PID: int32(pid), UID: cred.Uid, GID: cred.Groups[0]}, nil
}

// peerPidfdWorks is false: macOS has no SO_PEERPIDFD, and every peer's
// start time is read at accept.
func peerPidfdWorks() bool { return false }

// pinPeer has nothing to pin with on macOS: a peer whose start time could
// not be read at accept stays unpinned (0), and its lineage fails.
func pinPeer(syscall.RawConn, int32) uint64 { return 0 }
