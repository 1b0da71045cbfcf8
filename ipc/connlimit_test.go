package ipc

import (
	"net"
	"net/http"
	"slices"
	"testing"
)

// fakeConn is a connection the limiter can close.
type fakeConn struct {
	net.Conn
	name   string
	closed bool
}

func (c *fakeConn) Close() error { c.closed = true; return nil }

// limitStep is one connection a TestConnLimiter case opens.
type limitStep struct {
	conn  string
	pid   int32
	busy  bool // the connection is in a request once admitted
	admit bool // whether it should be admitted
}

// TestConnLimiter: over a bound, a new connection takes the place of the
// oldest idle one (its own peer's first when the peer is over its
// bound); busy connections are never closed, so when all are busy the
// new one is refused; a peer holding nothing may use the reserve.
func TestConnLimiter(t *testing.T) {
	type step = limitStep
	for _, tc := range []struct {
		name    string
		max     int
		perPeer int
		reserve int
		steps   []step
		closed  []string // evicted, in the order they were opened
	}{
		{"per peer: its oldest idle goes", 10, 2, 0,
			[]step{{"a1", 1, false, true}, {"b1", 2, false, true}, {"a2", 1, false, true}, {"a3", 1, false, true}}, []string{"a1"}},
		{"per peer: busy ones stay", 10, 2, 0,
			[]step{{"a1", 1, true, true}, {"a2", 1, false, true}, {"a3", 1, false, true}, {"a4", 1, false, true}}, []string{"a2", "a3"}},
		{"per peer: all busy, refused", 10, 2, 0,
			[]step{{"a1", 1, true, true}, {"a2", 1, true, true}, {"a3", 1, false, false}}, nil},
		{"overall: the oldest idle of anyone goes", 3, 3, 0,
			[]step{{"a1", 1, false, true}, {"b1", 2, false, true}, {"a2", 1, false, true}, {"b2", 2, false, true}}, []string{"a1"}},
		{"overall: a new peer uses the reserve", 2, 2, 1,
			[]step{{"a1", 1, true, true}, {"a2", 1, true, true}, {"b1", 2, false, true}, {"c1", 3, false, true}}, []string{"b1"}},
		{"overall: all busy, refused", 2, 2, 0,
			[]step{{"a1", 1, true, true}, {"b1", 2, true, true}, {"c1", 3, false, false}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := newConnLimiter(tc.max, tc.perPeer)
			l.reserve = tc.reserve
			conns := map[string]*fakeConn{}
			for _, s := range tc.steps {
				c := &fakeConn{name: s.conn}
				conns[s.conn] = c
				if got := l.admit(c, s.pid); got != s.admit {
					t.Fatalf("admit %s: %v, want %v", s.conn, got, s.admit)
				}
				if s.admit && s.busy {
					l.state(c, http.StateActive)
				}
			}
			var closed []string
			admitted := 0
			for _, s := range tc.steps {
				if conns[s.conn].closed {
					closed = append(closed, s.conn)
				}
				if s.admit {
					admitted++
				}
			}
			if !slices.Equal(closed, tc.closed) {
				t.Fatalf("closed %v, want %v", closed, tc.closed)
			}
			if want := admitted - len(tc.closed); l.open() != want {
				t.Fatalf("%d open, want %d", l.open(), want)
			}
		})
	}
}

// TestConnLimiterIdleOrder: a connection that finishes a request is the
// newest idle one, so the one idle longest is evicted first.
func TestConnLimiterIdleOrder(t *testing.T) {
	l := newConnLimiter(10, 2)
	a1, a2, a3 := &fakeConn{name: "a1"}, &fakeConn{name: "a2"}, &fakeConn{name: "a3"}
	l.admit(a1, 1)
	l.admit(a2, 1)
	l.state(a1, http.StateActive)
	l.state(a1, http.StateIdle)
	l.admit(a3, 1)
	if a1.closed || !a2.closed {
		t.Fatalf("a1 closed %v, a2 closed %v; want a2 (idle longer) evicted", a1.closed, a2.closed)
	}
	l.state(a1, http.StateClosed)
	l.state(a3, http.StateClosed)
	if l.open() != 0 || len(l.peers) != 0 || l.idle.Len() != 0 {
		t.Fatalf("after closing all: %d open, %d peers, %d idle", l.open(), len(l.peers), l.idle.Len())
	}
}

// open is the number of connections admitted and not yet closed.
func (l *connLimiter) open() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.conns)
}
