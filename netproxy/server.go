package netproxy

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"sync"
	"syscall"
	"time"
)

// Bounds of one proxy.
const (
	// MaxConns is how many connections one Server serves at once: a
	// confined command cannot hold the daemon's descriptors without end.
	MaxConns = 256
	// HeadLimit bounds a request head (an HTTP request line and headers,
	// or a SOCKS5 greeting and request).
	HeadLimit = 16 << 10
	// DefaultHeadTimeout bounds the time to send a request head, so a
	// silent client cannot hold a slot.
	DefaultHeadTimeout = 30 * time.Second
	// dialTimeout and resolveTimeout bound the default dial and any
	// resolution.
	dialTimeout    = 30 * time.Second
	resolveTimeout = 30 * time.Second
)

// socksVersion is the first byte of a SOCKS5 greeting; an HTTP request
// never starts with it.
const socksVersion = 0x05

// Server serves the proxy for one confined command. Its fields are set
// before Serve and not changed after; a Server is not copied once used.
type Server struct {
	Policy  func() Policy                                                     // read at every connection: live reload; nil: everything refused
	Ask     Asker                                                             // nil: Asking is Refused with "no one to ask"
	Resolve func(ctx context.Context, host string) ([]netip.Addr, error)      // nil: net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	Own     func(netip.Addr) bool                                             // nil: the machine's interface addresses (net.InterfaceAddrs, re-read at most once a second)
	Dial    func(ctx context.Context, network, addr string) (net.Conn, error) // nil: a net.Dialer with a 30 s timeout
	Refused func(d Destination, reason string)                                // told of every refused connection: the command's refusal lines
	Log     *slog.Logger                                                      // nil: slog.Default()

	// HeadTimeout bounds reading one request head; 0: DefaultHeadTimeout.
	HeadTimeout time.Duration
	// ConnLimit is how many connections Serve serves at once; 0: MaxConns.
	ConnLimit int

	own ownAddrs
}

// Serve accepts on ln until ctx ends or ln fails, serving each connection
// (ServeConn) in its own goroutine, and closes ln. On return every
// connection it served is closed. At most ConnLimit connections are served
// at once; one more is turned away (an HTTP 503 or a SOCKS5 general
// failure, after its head) and logged, and while as many are being turned
// away the next is closed unread. It returns nil when ctx ended.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	ctx, cancel := context.WithCancel(ctx)
	stopClose := context.AfterFunc(ctx, func() { ln.Close() })
	var wg sync.WaitGroup
	defer func() {
		stopClose()
		ln.Close()
		cancel()
		wg.Wait()
	}()
	limit := s.connLimit()
	serving := make(chan struct{}, limit)
	turning := make(chan struct{}, limit)
	var backoff time.Duration
	for {
		c, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			if !retryableAccept(err) {
				return fmt.Errorf("netproxy: accepting: %w", err)
			}
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			s.log().Warn("netproxy: accepting, retrying", "err", err, "after", backoff)
			select {
			case <-time.After(backoff):
			case <-ctx.Done():
				return nil
			}
			continue
		}
		backoff = 0
		s.dispatch(ctx, c, &wg, serving, turning)
	}
}

// dispatch starts serving c, or turning it away when the bound is reached.
func (s *Server) dispatch(ctx context.Context, c net.Conn, wg *sync.WaitGroup, serving, turning chan struct{}) {
	select {
	case serving <- struct{}{}:
		wg.Go(func() {
			defer func() { <-serving }()
			s.ServeConn(ctx, c)
		})
		return
	default:
	}
	s.log().Warn("netproxy: connection limit reached, turning a connection away", "limit", cap(serving), "remote", c.RemoteAddr().String())
	select {
	case turning <- struct{}{}:
		wg.Go(func() {
			defer func() { <-turning }()
			s.serve(ctx, c, true)
		})
	default:
		c.Close()
	}
}

// retryableAccept reports an accept error that passes: out of descriptors
// for a moment, or a connection reset before it was accepted.
func retryableAccept(err error) bool {
	return errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE) ||
		errors.Is(err, syscall.ECONNABORTED) || errors.Is(err, syscall.ENOBUFS) || errors.Is(err, syscall.ENOMEM)
}

// ServeConn serves one client: SOCKS5 when its first byte is 0x05, else an
// HTTP proxy: CONNECT host:port tunnels, absolute-form requests (GET
// http://host/path) are forwarded (keep-alive across requests to different
// hosts checks each host), anything else gets 400. Every destination is
// resolved (IP literals as they are), judged, asked when Asking, and
// dialled only at the checked addresses, trying each in turn (no second
// resolution: a name cannot rebind between check and dial). A refusal is
// HTTP 403 whose reason phrase and one-line text/plain body say "pathgrant
// refused connect to HOST:PORT: REASON"; SOCKS5 reply 0x02 (not allowed by
// ruleset), or 0x04 (host unreachable) / 0x05 (refused) when the dial
// itself failed. Headers Proxy-Authorization / Proxy-Connection are dropped
// on forwarding. Reading a request head is bounded (HeadLimit,
// HeadTimeout). c is closed on return, and when ctx ends.
func (s *Server) ServeConn(ctx context.Context, c net.Conn) {
	s.serve(ctx, c, false)
}

// serve serves c; busy: read its head and turn it away.
func (s *Server) serve(ctx context.Context, c net.Conn, busy bool) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(ctx, func() { c.Close() })
	defer stop()
	defer c.Close()
	cl := newClient(c, s.headTimeout())
	cl.beginHead()
	first, err := cl.br.Peek(1)
	if err != nil {
		s.log().Debug("netproxy: client sent nothing", "remote", remote(c), "err", err)
		return
	}
	if first[0] == socksVersion {
		s.serveSOCKS(ctx, cl, busy)
	} else {
		s.serveHTTP(ctx, cl, busy)
	}
	cl.linger()
}

func (s *Server) log() *slog.Logger {
	if s.Log != nil {
		return s.Log
	}
	return slog.Default()
}

func (s *Server) headTimeout() time.Duration {
	if s.HeadTimeout > 0 {
		return s.HeadTimeout
	}
	return DefaultHeadTimeout
}

func (s *Server) connLimit() int {
	if s.ConnLimit > 0 {
		return s.ConnLimit
	}
	return MaxConns
}

// client is one client connection and what reads its heads.
type client struct {
	conn    net.Conn
	budget  *headBudget
	br      *bufio.Reader
	timeout time.Duration
}

func newClient(c net.Conn, timeout time.Duration) *client {
	b := &headBudget{r: c}
	return &client{conn: c, budget: b, br: bufio.NewReader(b), timeout: timeout}
}

// beginHead bounds what follows until endHead: HeadLimit bytes within the
// head timeout.
func (cl *client) beginHead() {
	cl.budget.limit(HeadLimit)
	cl.conn.SetReadDeadline(time.Now().Add(cl.timeout))
}

// endHead lifts the head's bounds: a body or a tunnel is as long and as
// slow as it is.
func (cl *client) endHead() {
	cl.budget.unlimit()
	cl.conn.SetReadDeadline(time.Time{})
}

// lingerTime bounds the wait for a client to take the last answer: see
// linger.
const lingerTime = time.Second

// linger ends the proxy's side and reads what the client still sends, for
// at most lingerTime: a connection closed with unread bytes is reset, and a
// reset can destroy the answer (a 400, a SOCKS reply) before the client
// reads it.
func (cl *client) linger() {
	cw, ok := cl.conn.(closeWriter)
	if !ok || cw.CloseWrite() != nil {
		return
	}
	cl.conn.SetReadDeadline(time.Now().Add(lingerTime))
	io.CopyN(io.Discard, cl.conn, HeadLimit)
}

// errHungUp is the cause of a wait's ctx ending because the client left.
var errHungUp = errors.New("the client hung up")

// whileWaiting runs f with a ctx that ends when the client hangs up, for
// the time the client waits for an answer (resolution, a question to the
// person, the dial): a read in the background sees the hang-up. Bytes the
// client sends meanwhile stay buffered for what follows.
func (cl *client) whileWaiting(ctx context.Context, f func(ctx context.Context)) {
	wctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if _, err := cl.br.Peek(1); err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
			cancel(errHungUp)
		}
	}()
	f(wctx)
	cl.conn.SetReadDeadline(time.Unix(1, 0)) // wakes the background read
	<-done
	cl.conn.SetReadDeadline(time.Time{})
}

// errHeadTooLarge is a head longer than HeadLimit.
var errHeadTooLarge = fmt.Errorf("request head longer than %d bytes", HeadLimit)

// headBudget lets at most n bytes through while a head is read; what
// follows the head is not limited.
type headBudget struct {
	r       io.Reader
	n       int64
	limited bool
}

func (h *headBudget) limit(n int64) { h.n, h.limited = n, true }
func (h *headBudget) unlimit()      { h.limited = false }

func (h *headBudget) Read(p []byte) (int, error) {
	if !h.limited {
		return h.r.Read(p)
	}
	if h.n <= 0 {
		return 0, errHeadTooLarge
	}
	if int64(len(p)) > h.n {
		p = p[:h.n]
	}
	n, err := h.r.Read(p)
	h.n -= int64(n)
	return n, err
}

// remote names a client in logs.
func remote(c net.Conn) string {
	if a := c.RemoteAddr(); a != nil {
		return a.String()
	}
	return ""
}
