package ipc

import (
	"container/list"
	"net"
	"net/http"
	"sync"

	"golang.org/x/sys/unix"
)

// connLimiter bounds the daemon's open connections, overall and per peer
// process, so that a flood of idle connections can neither exhaust its
// file descriptors nor starve the health route. A new connection over a
// bound takes the place of the oldest idle one (the peer's own first,
// when the peer is over its bound); when every connection is busy the new
// one is closed at once. reserve extra slots above the overall bound are
// kept for peers holding no connection yet.
//
// Idle connections are kept in the order they became idle, overall and
// per peer, so that finding the oldest is constant time: under a flood
// every accepted connection evicts one.
type connLimiter struct {
	mu      sync.Mutex
	max     int
	perPeer int
	reserve int
	conns   map[net.Conn]*connState
	peers   map[int32]*peerConns
	idle    list.List // of net.Conn, oldest idle first
}

// connState is what the limiter knows of one open connection.
type connState struct {
	pid  int32
	idle *list.Element // in connLimiter.idle while idle (between requests, or before the first); nil while busy
	mine *list.Element // in its peerConns.idle while idle
}

// peerConns are one peer process's open connections.
type peerConns struct {
	open int
	idle list.List // of net.Conn, oldest idle first
}

// reserveConns are the slots above MaxConns kept for new peers.
const reserveConns = 32

func newConnLimiter(max, perPeer int) *connLimiter {
	return &connLimiter{max: max, perPeer: perPeer, reserve: reserveConns,
		conns: map[net.Conn]*connState{}, peers: map[int32]*peerConns{}}
}

// admit takes c in, closing idle connections to make room if needed.
func (l *connLimiter) admit(c net.Conn, pid int32) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	p := l.peers[pid]
	if p != nil && p.open >= l.perPeer && !l.evict(&p.idle) {
		return false
	}
	limit := l.max
	if p == nil || p.open == 0 {
		limit += l.reserve
	}
	if len(l.conns) >= limit && !l.evict(&l.idle) {
		return false
	}
	if p = l.peers[pid]; p == nil { // evicting may have removed it
		p = &peerConns{}
		l.peers[pid] = p
	}
	p.open++
	st := &connState{pid: pid}
	l.conns[c] = st
	l.setIdle(st, c)
	return true
}

// evict closes the oldest idle connection on idle (all, or one peer's).
// Called with mu held.
func (l *connLimiter) evict(idle *list.List) bool {
	front := idle.Front()
	if front == nil {
		return false
	}
	c := front.Value.(net.Conn)
	l.forget(c)
	c.Close()
	return true
}

// drop forgets c and closes it.
func (l *connLimiter) drop(c net.Conn) {
	l.mu.Lock()
	l.forget(c)
	l.mu.Unlock()
	c.Close()
}

// forget drops c from the counts. Called with mu held.
func (l *connLimiter) forget(c net.Conn) {
	st, ok := l.conns[c]
	if !ok {
		return
	}
	l.setBusy(st)
	delete(l.conns, c)
	if p := l.peers[st.pid]; p != nil {
		if p.open--; p.open <= 0 {
			delete(l.peers, st.pid)
		}
	}
}

// setIdle puts c at the back of the idle lists. Called with mu held.
func (l *connLimiter) setIdle(st *connState, c net.Conn) {
	if st.idle != nil {
		return
	}
	st.idle = l.idle.PushBack(c)
	st.mine = l.peers[st.pid].idle.PushBack(c)
}

// setBusy takes c off the idle lists. Called with mu held.
func (l *connLimiter) setBusy(st *connState) {
	if st.idle == nil {
		return
	}
	l.idle.Remove(st.idle)
	l.peers[st.pid].idle.Remove(st.mine)
	st.idle, st.mine = nil, nil
}

// state is the server's ConnState hook: it tracks which connections are
// idle, and forgets closed ones.
func (l *connLimiter) state(c net.Conn, s http.ConnState) {
	l.mu.Lock()
	defer l.mu.Unlock()
	st := l.conns[c]
	switch {
	case s == http.StateClosed || s == http.StateHijacked:
		l.forget(c)
	case st == nil:
	case s == http.StateActive:
		l.setBusy(st)
	case s == http.StateIdle:
		l.setBusy(st) // to the back: idle since now
		l.setIdle(st, c)
	}
}

// raiseFileLimit lifts the soft limit on open files to the hard one (or
// as near as the OS allows: fileLimitCeiling), so the connection bounds,
// not the descriptor limit, are what a flood meets.
func raiseFileLimit() error {
	var rl unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &rl); err != nil {
		return err
	}
	want := fileLimitCeiling(rl.Max)
	if rl.Cur >= want {
		return nil
	}
	rl.Cur = want
	return unix.Setrlimit(unix.RLIMIT_NOFILE, &rl)
}
