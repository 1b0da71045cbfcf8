package wire

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Client speaks HTTP/1.1 to the daemon on Socket, one request and one
// answer at a time on each connection. Session and Token, when set, go
// as headers with every request. Keep is how many idle connections it
// keeps for reuse (a check is then one write and one read on an open
// connection); zero closes each after its answer, as a hook or a front
// end, which make one call, want. Poll puts its sockets on the runtime's
// poller, for a process with other work to do while a call waits (the
// CLI, the MCP bridge, a test serving the daemon in process); the hook
// and the front end only wait, and start no poller.
type Client struct {
	Socket  string
	Session string
	Token   string
	Keep    int
	Poll    bool

	mu   sync.Mutex
	idle []*conn
}

// MaxAnswer bounds an answer a client reads: a tool's output, a prepared
// sandbox's rules and the grants and audit lists stay well within it.
const MaxAnswer = 16 << 20

// Header is one extra request header.
type Header struct{ Name, Value string }

type conn struct {
	f         *os.File
	br        *bufio.Reader
	reused    bool      // kept from an earlier call
	idleSince time.Time // when its last answer was read
}

// Do sends method path with in as its JSON body (nil: none) and decodes a
// 2xx answer into out (nil: discard it). A non-2xx answer is a
// *DaemonError. The context bounds the whole exchange, including a long
// wait for the person's decision: its deadline becomes the socket's
// timeouts, and canceling it shuts the socket down.
func (c *Client) Do(ctx context.Context, method, path string, in, out any, extra ...Header) error {
	req, err := c.encode(method, path, in, extra)
	if err != nil {
		return err
	}
	resp, err := c.exchange(ctx, req)
	if err != nil {
		return err
	}
	if resp.status/100 != 2 {
		var e Error
		_ = json.Unmarshal(resp.body, &e)
		if e.Error == "" {
			e.Error = strings.TrimSpace(string(resp.body))
		}
		return &DaemonError{Status: resp.status, Kind: e.Kind, Msg: e.Error}
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(resp.body, out); err != nil {
		return fmt.Errorf("pathgrant daemon at %s: malformed answer to %s: %w", c.Socket, path, err)
	}
	return nil
}

// encode writes the request's head and body.
func (c *Client) encode(method, path string, in any, extra []Header) ([]byte, error) {
	var body []byte
	if in != nil {
		var err error
		if body, err = json.Marshal(in); err != nil {
			return nil, fmt.Errorf("encode %s request: %w", path, err)
		}
	}
	var b bytes.Buffer
	b.WriteString(method + " " + path + " HTTP/1.1\r\nHost: pathgrant\r\n")
	if c.Keep == 0 {
		b.WriteString("Connection: close\r\n")
	}
	hdr := func(k, v string) {
		if v != "" {
			b.WriteString(k + ": " + v + "\r\n")
		}
	}
	values := append([]Header{{HeaderSession, c.Session}, {HeaderToken, c.Token}}, extra...)
	for _, h := range values {
		if strings.ContainsAny(h.Value, "\r\n") {
			return nil, fmt.Errorf("encode %s request: header %s holds a line break", path, h.Name)
		}
		hdr(h.Name, h.Value)
	}
	if in != nil {
		b.WriteString("Content-Type: application/json\r\n")
	}
	b.WriteString("Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n")
	b.Write(body)
	return b.Bytes(), nil
}

// exchange sends req on a kept or new connection and reads its answer.
// A request is sent again, once and on a new connection, only when
// writing it to a kept connection failed (the daemon had closed it), so
// the daemon never read it: a request whose answer did not come is never
// resent, since the daemon may have acted on it (a tool call, a decision).
func (c *Client) exchange(ctx context.Context, req []byte) (response, error) {
	for attempt := 0; ; attempt++ {
		cc, err := c.conn(ctx)
		if err != nil {
			return response{}, err
		}
		resp, unsent, err := c.roundTrip(ctx, cc, req)
		if err != nil && unsent && cc.reused && attempt == 0 && ctx.Err() == nil {
			continue
		}
		if err != nil {
			return response{}, c.exchangeError(ctx, err)
		}
		return resp, nil
	}
}

// roundTrip is one request and answer on cc, which it keeps or closes.
// unsent says the write failed because the daemon had closed the
// connection: the request was not read.
func (c *Client) roundTrip(ctx context.Context, cc *conn, req []byte) (resp response, unsent bool, err error) {
	deadline, _ := ctx.Deadline()
	if err := c.setDeadline(cc.f, deadline); err != nil {
		cc.f.Close()
		return response{}, false, err
	}
	stop := context.AfterFunc(ctx, func() { shutdown(cc.f) })
	if _, err = cc.f.Write(req); err != nil {
		unsent = errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET)
	} else {
		resp, err = readResponse(cc.br, MaxAnswer)
	}
	if !stop() || err != nil || resp.close {
		cc.f.Close()
	} else {
		cc.idleSince = time.Now()
		c.release(cc)
	}
	return resp, unsent, err
}

// setDeadline bounds the exchange on f: through the poller for a polled
// socket, else with the kernel's send and receive timeouts.
func (c *Client) setDeadline(f *os.File, deadline time.Time) error {
	if c.Poll {
		return f.SetDeadline(deadline)
	}
	return withFD(f, func(fd int) error { return setTimeouts(fd, deadline, syscall.SO_RCVTIMEO, syscall.SO_SNDTIMEO) })
}

// conn returns a kept connection that is still open or a new one. A kept
// connection idle for maxIdleAge or more is not used: the daemon closes
// idle ones after 30 s, and one closed while the request is on its way
// would fail it.
func (c *Client) conn(ctx context.Context) (*conn, error) {
	for {
		c.mu.Lock()
		n := len(c.idle)
		if n == 0 {
			c.mu.Unlock()
			break
		}
		cc := c.idle[n-1]
		c.idle = c.idle[:n-1]
		c.mu.Unlock()
		if time.Since(cc.idleSince) >= maxIdleAge || cc.br.Buffered() > 0 || peerClosed(cc.f) {
			cc.f.Close()
			continue
		}
		cc.reused = true
		return cc, nil
	}
	deadline, _ := ctx.Deadline()
	f, err := dial(ctx, c.Socket, deadline, c.Poll)
	if err != nil {
		return nil, err
	}
	return &conn{f: f, br: bufio.NewReader(f)}, nil
}

func (c *Client) release(cc *conn) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.idle) >= c.Keep {
		cc.f.Close()
		return
	}
	c.idle = append(c.idle, cc)
}

// CloseIdle closes the connections kept for reuse.
func (c *Client) CloseIdle() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, cc := range c.idle {
		cc.f.Close()
	}
	c.idle = nil
}

// maxIdleAge is how long a kept connection may wait for its next call,
// well within the daemon's idle timeout.
const maxIdleAge = 20 * time.Second

// peerClosed reports whether the daemon has closed a kept connection (or
// sent on it unasked): a non-blocking peek finds its end or a byte.
func peerClosed(f *os.File) bool {
	var b [1]byte
	closed := true
	_ = withFD(f, func(fd int) error {
		_, _, err := syscall.Recvfrom(fd, b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		closed = err != syscall.EAGAIN
		return nil
	})
	return closed
}

func (c *Client) exchangeError(ctx context.Context, err error) error {
	switch {
	case ctx.Err() != nil:
		err = ctx.Err()
	case errors.Is(err, syscall.EAGAIN) || errors.Is(err, os.ErrDeadlineExceeded):
		err = context.DeadlineExceeded // a socket timeout: the deadline passed
	}
	var ue *UnreachableError
	if errors.As(err, &ue) || strings.HasPrefix(err.Error(), "pathgrant daemon at ") {
		return err
	}
	return fmt.Errorf("pathgrant daemon at %s: %w", c.Socket, err)
}
