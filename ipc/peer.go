package ipc

import (
	"context"
	"net"
	"os"

	"golang.org/x/sys/unix"
)

// Peer is the process at the other end of a connection, as the kernel
// reports it (SO_PEERCRED): it cannot be spoofed by the client.
type Peer struct {
	PID int32
	UID uint32
	GID uint32
}

type peerKey struct{}

// withPeer is the server's ConnContext: it reads the peer's credentials
// once per connection, before any request on it is handled.
func withPeer(ctx context.Context, c net.Conn) context.Context {
	if p, ok := peerOf(c); ok {
		return context.WithValue(ctx, peerKey{}, p)
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

// PeerFrom returns the connection's peer; ok is false when the kernel gave
// none, which the server treats as a stranger.
func PeerFrom(ctx context.Context) (Peer, bool) {
	p, ok := ctx.Value(peerKey{}).(Peer)
	return p, ok
}

// sameUser reports whether the peer runs as this process's user.
func (p Peer) sameUser() bool {
	return int(p.UID) == os.Getuid()
}
