package ipc

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"sync"

	"golang.org/x/sys/unix"

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
type connInfo struct {
	peer    Peer
	start   uint64 // the peer process's start time at accept; 0 if unreadable
	once    sync.Once
	lineage *lineageOf
}

// withPeer is the server's ConnContext: it reads the peer's credentials
// once per connection, before any request on it is handled, and the peer
// process's start time, so that a peer that exits and whose pid is reused
// is never mistaken for the new process.
func withPeer(ctx context.Context, c net.Conn) context.Context {
	if p, ok := peerOf(c); ok {
		ci := &connInfo{peer: p}
		if _, proc, _, err := procInfo(p.PID); err == nil {
			ci.start = proc.Start
		}
		return context.WithValue(ctx, peerKey{}, ci)
	}
	return ctx
}

func peerOf(c net.Conn) (Peer, bool) {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return Peer{}, false
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return Peer{}, false
	}
	var cred *unix.Ucred
	var credErr error
	if err := raw.Control(func(fd uintptr) {
		cred, credErr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil || credErr != nil {
		return Peer{}, false
	}
	return Peer{PID: cred.Pid, UID: cred.Uid, GID: cred.Gid}, true
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
	return int(p.UID) == os.Getuid()
}

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
			s.audit(grants.Record{Kind: grants.KindForged, Reason: reason})
			writeError(w, errorf(http.StatusForbidden, grants.KindForged, "%s", reason))
			return
		}
		next.ServeHTTP(w, r)
	})
}
