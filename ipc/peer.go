package ipc

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"

	"pathgrant/engine"
	"pathgrant/grants"
)

// Peer is the process at the other end of a connection, as the kernel
// reports it (SO_PEERCRED): it cannot be spoofed by the client.
type Peer struct {
	PID int32
	UID uint32
	GID uint32
}

type peerKey struct{}

// connInfo is what the server knows about one connection's peer. The
// credentials are read when the connection is accepted; the process
// lineage (a walk up /proc) is read once, when a request first needs it.
//
// The peer process itself is pinned by the kernel: a connected Unix socket
// holds a reference to the connecting process's struct pid from connect()
// on, which SO_PEERPIDFD hands out as a pidfd. The first /proc read is
// checked against that pin (pinnedStart), so a peer that exits and whose
// pid is reused is never mistaken for the new process, without a /proc
// read on the accept path. Kernels without SO_PEERPIDFD (before 6.5) get
// the peer's start time read at accept instead, as start.
type connInfo struct {
	peer    Peer
	raw     syscall.RawConn // the connection, for SO_PEERPIDFD; nil: none
	start   uint64          // the peer's start time read at accept (no SO_PEERPIDFD); 0: not read
	once    sync.Once
	lineage *engine.Lineage
}

// peerConn is an admitted connection with what was learnt of its peer at
// accept; the server's ConnContext finds it there.
type peerConn struct {
	net.Conn
	info *connInfo
}

// newConnInfo reads c's peer credentials (and, on kernels that cannot pin
// the peer, its start time); ok is false when the kernel gives none.
func newConnInfo(c net.Conn) (*connInfo, bool) {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return nil, false
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return nil, false
	}
	p, err := peerCred(raw)
	if err != nil {
		return nil, false
	}
	ci := &connInfo{peer: p, raw: raw}
	if !peerPidfdWorks() {
		if _, proc, _, err := engine.ProcInfo(p.PID); err == nil {
			ci.start = proc.Start
		}
	}
	return ci, true
}

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

// pinnedStart is the peer process's start time, read from /proc and
// checked against the kernel's pin: the pid was read from /proc, and the
// process the socket pinned was still there (not reaped) afterwards, so
// the pid could not have named another process at the time of the read.
// 0 means the peer is gone or cannot be pinned; its lineage then fails,
// and a failed lineage is treated as an agent's.
func (ci *connInfo) pinnedStart() uint64 {
	if ci.start != 0 || ci.raw == nil {
		return ci.start
	}
	pidfd, err := peerPidfd(ci.raw)
	if err != nil {
		return 0
	}
	defer unix.Close(pidfd)
	_, proc, _, err := engine.ProcInfo(ci.peer.PID)
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

// withPeer is the server's ConnContext: it attaches the peer read when the
// connection was admitted, before any request on it is handled. A
// connection that did not come through admission has no peer, and every
// request on it is refused by checkPeer.
func withPeer(ctx context.Context, c net.Conn) context.Context {
	if pc, ok := c.(*peerConn); ok && pc.info != nil {
		return context.WithValue(ctx, peerKey{}, pc.info)
	}
	return ctx
}

// peerFrom returns the connection's peer; ok is false when the kernel gave
// none, which the server treats as a stranger.
func peerFrom(ctx context.Context) (Peer, bool) {
	ci, ok := ctx.Value(peerKey{}).(*connInfo)
	if !ok {
		return Peer{}, false
	}
	return ci.peer, true
}

// sameUser reports whether the peer runs as this process's user.
func (p Peer) sameUser() bool {
	return int(p.UID) == ownUID
}

// ownUID is this process's user, read once: a process's real uid does not
// change under it, and every request compares against it.
var ownUID = os.Getuid()

// checkPeer refuses, before any handler runs, a connection whose peer the
// kernel did not identify or that runs as another user; the refusal is
// audited.
func (s *Server) checkPeer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, ok := peerFrom(r.Context())
		if !ok || !p.sameUser() {
			reason := "peer credentials unavailable"
			if ok {
				reason = fmt.Sprintf("peer uid %d is not this user", p.UID)
			}
			s.e.Audit(grants.Record{Kind: grants.KindForged, Reason: reason})
			writeError(w, errorf(http.StatusForbidden, grants.KindForged, "%s", reason))
			return
		}
		next.ServeHTTP(w, r)
	})
}
