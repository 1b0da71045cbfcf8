package ipc

import (
	"net"
	"net/http"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// connLimiter bounds the daemon's open connections, overall and per peer
// process, so that a flood of idle connections can neither exhaust its
// file descriptors nor starve the health route. A new connection over a
// bound takes the place of the oldest idle one (the peer's own first,
// when the peer is over its bound); when every connection is busy the new
// one is closed at once. reserve extra slots above the overall bound are
// kept for peers holding no connection yet.
type connLimiter struct {
	mu      sync.Mutex
	max     int
	perPeer int
	reserve int
	conns   map[net.Conn]*connState
	byPeer  map[int32]int
}

// connState is what the limiter knows of one open connection.
type connState struct {
	pid   int32
	idle  bool      // between requests, or not yet sent one
	since time.Time // when it last became idle
}

// reserveConns are the slots above MaxConns kept for new peers.
const reserveConns = 32

func newConnLimiter(max, perPeer int) *connLimiter {
	return &connLimiter{max: max, perPeer: perPeer, reserve: reserveConns,
		conns: map[net.Conn]*connState{}, byPeer: map[int32]int{}}
}

// limitListener is a listener whose Accept admits connections through a
// connLimiter.
type limitListener struct {
	net.Listener
	lim *connLimiter
}

// Accept returns the next admitted connection; refused ones are closed
// before the server sees them.
func (l limitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if l.lim.admit(c, connPID(c)) {
			return c, nil
		}
		c.Close()
	}
}

// connPID is the kernel's pid for the peer, 0 when it gives none.
func connPID(c net.Conn) int32 {
	p, ok := peerOf(c)
	if !ok {
		return 0
	}
	return p.PID
}

// admit takes c in, closing idle connections to make room if needed.
func (l *connLimiter) admit(c net.Conn, pid int32) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.byPeer[pid] >= l.perPeer && !l.evict(pid, true) {
		return false
	}
	limit := l.max
	if l.byPeer[pid] == 0 {
		limit += l.reserve
	}
	if len(l.conns) >= limit && !l.evict(0, false) {
		return false
	}
	l.conns[c] = &connState{pid: pid, idle: true, since: time.Now()}
	l.byPeer[pid]++
	return true
}

// evict closes the oldest idle connection, of peer pid when samePeer.
// Called with mu held.
func (l *connLimiter) evict(pid int32, samePeer bool) bool {
	var oldest net.Conn
	var at time.Time
	for c, st := range l.conns {
		if !st.idle || (samePeer && st.pid != pid) {
			continue
		}
		if oldest == nil || st.since.Before(at) {
			oldest, at = c, st.since
		}
	}
	if oldest == nil {
		return false
	}
	l.forget(oldest)
	oldest.Close()
	return true
}

// forget drops c from the counts. Called with mu held.
func (l *connLimiter) forget(c net.Conn) {
	st, ok := l.conns[c]
	if !ok {
		return
	}
	delete(l.conns, c)
	if l.byPeer[st.pid]--; l.byPeer[st.pid] <= 0 {
		delete(l.byPeer, st.pid)
	}
}

// state is the server's ConnState hook: it tracks which connections are
// idle, and forgets closed ones.
func (l *connLimiter) state(c net.Conn, s http.ConnState) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch s {
	case http.StateClosed, http.StateHijacked:
		l.forget(c)
	case http.StateActive:
		if st := l.conns[c]; st != nil {
			st.idle = false
		}
	case http.StateIdle:
		if st := l.conns[c]; st != nil {
			st.idle, st.since = true, time.Now()
		}
	}
}

// open is the number of connections admitted and not yet closed.
func (l *connLimiter) open() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.conns)
}

// raiseFileLimit lifts the soft limit on open files to the hard one, so
// the connection bounds, not the descriptor limit, are what a flood meets.
func raiseFileLimit() error {
	var rl unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &rl); err != nil {
		return err
	}
	if rl.Cur >= rl.Max {
		return nil
	}
	rl.Cur = rl.Max
	return unix.Setrlimit(unix.RLIMIT_NOFILE, &rl)
}
