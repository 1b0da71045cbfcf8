package ipc

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"syscall"
	"time"
)

// admitListener accepts on the daemon's socket in a goroutine of its own
// that does only what must happen before the server sees a connection:
// the kernel's peer credentials and admission within the connection
// bounds. Admitted connections reach the HTTP server through Accept;
// refused ones are closed at once. Everything slower (the peer's process
// lineage, reading the request) happens on the connection's own
// goroutine. A short accept loop keeps the kernel's accept queue short
// under a flood of connections, so a new client waits behind few others.
type admitListener struct {
	ln    net.Listener
	lim   *connLimiter
	log   *slog.Logger
	ready chan net.Conn
	done  chan struct{}
	once  sync.Once
	err   error // why accepting ended; set before ready is closed
}

// admitQueue is how many admitted connections may wait for the HTTP
// server's accept loop.
const admitQueue = 64

func newAdmitListener(ln net.Listener, lim *connLimiter, log *slog.Logger) *admitListener {
	l := &admitListener{ln: ln, lim: lim, log: log, ready: make(chan net.Conn, admitQueue), done: make(chan struct{})}
	go l.run()
	return l
}

// Accept returns the next admitted connection.
func (l *admitListener) Accept() (net.Conn, error) {
	select {
	case c, ok := <-l.ready:
		if !ok {
			return nil, l.err
		}
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

// Close stops accepting and closes the socket; admitted connections the
// server has not taken yet are closed.
func (l *admitListener) Close() error {
	err := net.ErrClosed
	l.once.Do(func() {
		close(l.done)
		err = l.ln.Close()
	})
	return err
}

func (l *admitListener) Addr() net.Addr { return l.ln.Addr() }

// run accepts until the listener closes or fails for good.
func (l *admitListener) run() {
	defer close(l.ready)
	defer l.drain()
	var pause time.Duration
	for {
		c, err := l.ln.Accept()
		if err != nil {
			if pause = acceptPause(err, pause); pause == 0 {
				l.err = fmt.Errorf("accept: %w", err)
				return
			}
			l.log.Warn("accept failed; retrying", "err", err, "pause", pause)
			select {
			case <-time.After(pause):
				continue
			case <-l.done:
				l.err = net.ErrClosed
				return
			}
		}
		pause = 0
		pc := l.admit(c)
		if pc == nil {
			continue
		}
		select {
		case l.ready <- pc:
		case <-l.done:
			l.lim.drop(pc)
			l.err = net.ErrClosed
			return
		}
	}
}

// admit reads c's peer and takes it in within the bounds, or closes it.
// A connection whose peer the kernel does not name is admitted without
// one: the server then refuses and audits its requests.
func (l *admitListener) admit(c net.Conn) *peerConn {
	pc := &peerConn{Conn: c}
	var pid int32
	if ci, ok := newConnInfo(c); ok {
		pc.info, pid = ci, ci.peer.PID
	}
	if !l.lim.admit(pc, pid) {
		c.Close()
		return nil
	}
	return pc
}

// drain closes admitted connections the server never took.
func (l *admitListener) drain() {
	for {
		select {
		case c := <-l.ready:
			l.lim.drop(c)
		default:
			return
		}
	}
}

// acceptPause is how long to wait after a failed accept before the next
// (doubling from 5 ms to 1 s), or 0 when accepting is over: the listener
// was closed, or failed in a way waiting does not mend. Running out of
// file descriptors or memory is waited out.
func acceptPause(err error, last time.Duration) time.Duration {
	switch {
	case errors.Is(err, net.ErrClosed):
		return 0
	case errors.Is(err, syscall.EMFILE), errors.Is(err, syscall.ENFILE), errors.Is(err, syscall.ENOBUFS),
		errors.Is(err, syscall.ENOMEM), errors.Is(err, syscall.ECONNABORTED), errors.Is(err, syscall.EINTR):
		return min(max(2*last, 5*time.Millisecond), time.Second)
	}
	return 0
}
