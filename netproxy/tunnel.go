package netproxy

import (
	"context"
	"io"
	"net"
)

// closeWriter is a connection that can end one direction: TCP and Unix
// connections.
type closeWriter interface{ CloseWrite() error }

// tunnel copies bytes both ways between the client and up until both
// directions have ended, then closes up (the caller closes the client).
// A direction that ends cleanly half-closes the other side, so git's and
// ssh's protocols, which end one direction first, finish. io.Copy between
// two *net.TCPConn splices. A direction that fails ends both.
func tunnel(ctx context.Context, cl *client, up net.Conn) {
	abort := func() {
		cl.conn.Close()
		up.Close()
	}
	stop := context.AfterFunc(ctx, abort)
	defer stop()
	defer up.Close()
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := copyClientUp(cl, up); err != nil {
			abort()
			return
		}
		endWrite(up, abort)
	}()
	if _, err := io.Copy(cl.conn, up); err != nil {
		abort()
	} else {
		endWrite(cl.conn, abort)
	}
	<-done
}

// copyClientUp sends what the client has sent: first what the head's
// reader already buffered, then straight from the connection, so the copy
// between two TCP connections splices.
func copyClientUp(cl *client, up net.Conn) error {
	if n := cl.br.Buffered(); n > 0 {
		b, _ := cl.br.Peek(n)
		if _, err := up.Write(b); err != nil {
			return err
		}
		cl.br.Discard(n)
	}
	_, err := io.Copy(up, cl.conn)
	return err
}

// endWrite tells c's peer that no more bytes come; a connection that
// cannot half-close is ended whole.
func endWrite(c net.Conn, abort func()) {
	if cw, ok := c.(closeWriter); ok {
		if cw.CloseWrite() == nil {
			return
		}
	}
	abort()
}
