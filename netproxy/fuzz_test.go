package netproxy

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"net/netip"
	"sync"
	"testing"
	"time"
)

// FuzzServeConn: whatever a client sends, ServeConn returns, and what it
// answers is in the client's protocol: a SOCKS5 reply to a SOCKS5 client,
// an HTTP status line to anything else. Every name resolves to a public
// address, every dial reaches a scripted HTTP server, so the forward and
// tunnel paths run too.
func FuzzServeConn(f *testing.F) {
	f.Add([]byte("CONNECT upstream.test:443 HTTP/1.1\r\nHost: upstream.test:443\r\n\r\nbytes"))
	f.Add([]byte("\x05\x01\x00\x05\x01\x00\x03\x0dupstream.test\x01\xbb"))
	srv := &Server{
		Policy: func() Policy { return Policy{Mode: AllowPublic, Refuse: []string{"*.refused.test"}} },
		Own:    func(netip.Addr) bool { return false },
		Resolve: func(context.Context, string) ([]netip.Addr, error) {
			return []netip.Addr{fakePublic4}, nil
		},
		Dial: func(context.Context, string, string) (net.Conn, error) {
			return newScriptConn([]byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")), nil
		},
		Log: slog.New(slog.DiscardHandler),
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		c := newScriptConn(in)
		srv.ServeConn(context.Background(), c)
		out := c.written()
		switch {
		case len(out) == 0:
		case len(in) > 0 && in[0] == socksVersion:
			if out[0] != socksVersion {
				t.Errorf("a SOCKS5 client got % x", out)
			}
		case !bytes.HasPrefix(out, []byte("HTTP/1.1 ")):
			t.Errorf("an HTTP client got %q", out)
		}
	})
}

// scriptConn is a connection that reads a script and then its end, and
// keeps what is written to it.
type scriptConn struct {
	r   *bytes.Reader
	mu  sync.Mutex
	out bytes.Buffer
}

func newScriptConn(script []byte) *scriptConn { return &scriptConn{r: bytes.NewReader(script)} }

func (c *scriptConn) Read(p []byte) (int, error) { return c.r.Read(p) }

func (c *scriptConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.out.Write(p)
}

func (c *scriptConn) written() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return bytes.Clone(c.out.Bytes())
}

func (c *scriptConn) Close() error { return nil }
func (c *scriptConn) LocalAddr() net.Addr {
	return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1080}
}
func (c *scriptConn) RemoteAddr() net.Addr {
	return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 40000}
}
func (c *scriptConn) SetDeadline(time.Time) error      { return nil }
func (c *scriptConn) SetReadDeadline(time.Time) error  { return nil }
func (c *scriptConn) SetWriteDeadline(time.Time) error { return nil }
