package ipc

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"sync"
	"syscall"

	"pathgrant/engine"
	"pathgrant/grants"
)

// Peer is the process at the other end of a connection, as the kernel
// reports it (SO_PEERCRED on Linux, LOCAL_PEERCRED and LOCAL_PEERPID on
// macOS): it cannot be spoofed by the client.
type Peer struct {
	PID int32
	UID uint32
	GID uint32
}

type peerKey struct{}

// connInfo is what the server knows about one connection's peer. The
// credentials are read when the connection is accepted; the process
// lineage (a walk up the process tree, engine.ProcInfo) is read once,
// when a request first needs it.
//
// On Linux the peer process itself is pinned by the kernel: a connected
// Unix socket holds a reference to the connecting process's struct pid
// from connect() on, which SO_PEERPIDFD hands out as a pidfd. The first
// /proc read is checked against that pin (pinnedStart), so a peer that
// exits and whose pid is reused is never mistaken for the new process,
// without a /proc read on the accept path. Where there is no such pin
// (Linux before 6.5, macOS: peer_darwin.go) the peer's start time is read
// at accept instead, as start.
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

// PeerOf is the kernel's account of the process at the other end of c,
// a connected Unix socket: its pid and user, which it cannot misreport.
// doctor asks it of the daemon.
func PeerOf(c net.Conn) (Peer, error) {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return Peer{}, fmt.Errorf("peer credentials: %T is not a Unix socket", c)
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return Peer{}, fmt.Errorf("peer credentials: %w", err)
	}
	return peerCred(raw)
}

// pinnedStart is the peer process's start time, pinned to the connection
// as well as the OS allows (pinPeer); 0 means the peer is gone or cannot
// be pinned: its lineage then fails, and a failed lineage is treated as
// an agent's.
func (ci *connInfo) pinnedStart() uint64 {
	if ci.start != 0 || ci.raw == nil {
		return ci.start
	}
	return pinPeer(ci.raw, ci.peer.PID)
}

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
