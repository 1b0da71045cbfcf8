package netproxy

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"
)

// The test's world: names and addresses that look public or private to the
// proxy, all of them reached by Dial at the test's 127.0.0.1 listeners. The
// check runs on what Resolve returned; Dial only proves bytes flow.
var (
	fakePublic4 = netip.MustParseAddr("93.184.216.34")
	fakePublic6 = netip.MustParseAddr("2606:2800:220:1:248:1893:25c8:1946")
	fakePrivate = netip.MustParseAddr("10.30.1.1")
	fakeNames   = map[string][]netip.Addr{
		"upstream.test":  {fakePublic4},
		"upstream6.test": {fakePublic6},
		"mixed.test":     {fakePublic4, netip.MustParseAddr("127.0.0.1")},
		"private.test":   {fakePrivate},
	}
)

// testTimeout bounds every wait in a test: a failure, never a pace.
const testTimeout = 10 * time.Second

// harness is a proxy on 127.0.0.1 with an echo upstream and an HTTP one.
type harness struct {
	srv      *Server
	proxy    string
	echoPort uint16
	httpPort uint16

	mu       sync.Mutex
	dialled  []string
	resolved []string
	refused  []string
}

// newHarness starts the upstreams and a proxy, configured by configure
// after the test defaults (allow-public, nothing own, the fake world).
func newHarness(t testing.TB, configure func(*Server)) *harness {
	t.Helper()
	h := &harness{echoPort: startEcho(t), httpPort: startHTTP(t)}
	h.srv = &Server{
		Policy:  func() Policy { return Policy{Mode: AllowPublic} },
		Own:     func(netip.Addr) bool { return false },
		Resolve: h.resolve,
		Dial:    h.dial,
		Refused: func(d Destination, reason string) {
			h.mu.Lock()
			defer h.mu.Unlock()
			h.refused = append(h.refused, d.String()+": "+reason)
		},
		Log: slog.New(slog.DiscardHandler),
	}
	if configure != nil {
		configure(h.srv)
	}
	ln := listen(t)
	h.proxy = ln.Addr().String()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- h.srv.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return h
}

func (h *harness) resolve(_ context.Context, host string) ([]netip.Addr, error) {
	h.mu.Lock()
	h.resolved = append(h.resolved, host)
	h.mu.Unlock()
	if as, ok := fakeNames[host]; ok {
		return as, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

// dial reaches the fake addresses at 127.0.0.1, the same port; it never
// dials anything else.
func (h *harness) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	h.mu.Lock()
	h.dialled = append(h.dialled, addr)
	h.mu.Unlock()
	ap, err := netip.ParseAddrPort(addr)
	if err != nil {
		return nil, err
	}
	if !slices.Contains([]netip.Addr{fakePublic4, fakePublic6, fakePrivate}, ap.Addr()) {
		return nil, fmt.Errorf("test dial: %s is not in the test's world", addr)
	}
	var d net.Dialer
	return d.DialContext(ctx, network, "127.0.0.1:"+strconv.Itoa(int(ap.Port())))
}

func (h *harness) dials() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.dialled)
}

func (h *harness) refusals() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.refused)
}

// client dials the proxy, with a deadline that turns a hang into a failure.
func (h *harness) client(t testing.TB) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", h.proxy)
	if err != nil {
		t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(testTimeout))
	t.Cleanup(func() { c.Close() })
	return c
}

// connect sends CONNECT target and reads the answer.
func (h *harness) connect(t testing.TB, target string) (net.Conn, *bufio.Reader, *http.Response) {
	t.Helper()
	c := h.client(t)
	fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, target)
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
	if err != nil {
		t.Fatalf("CONNECT %s: %v", target, err)
	}
	return c, br, resp
}

// socks sends a SOCKS5 greeting and CONNECT request and reads the reply's
// code.
func (h *harness) socks(t testing.TB, atyp byte, addr []byte, port uint16) (net.Conn, byte) {
	t.Helper()
	c := h.client(t)
	if _, err := c.Write([]byte{5, 1, 0}); err != nil {
		t.Fatal(err)
	}
	var choice [2]byte
	if _, err := io.ReadFull(c, choice[:]); err != nil || choice != [2]byte{5, 0} {
		t.Fatalf("method choice %v, %v", choice, err)
	}
	req := append([]byte{5, 1, 0, atyp}, addr...)
	req = binary.BigEndian.AppendUint16(req, port)
	if _, err := c.Write(req); err != nil {
		t.Fatal(err)
	}
	var reply [10]byte
	if _, err := io.ReadFull(c, reply[:]); err != nil {
		t.Fatalf("reading the SOCKS5 reply: %v", err)
	}
	return c, reply[1]
}

// socksDomain is the address of a name in a SOCKS5 request.
func socksDomain(name string) []byte { return append([]byte{byte(len(name))}, name...) }

// echoThrough proves bytes flow both ways and a half-close ends the
// tunnel: what is sent comes back, then EOF.
func echoThrough(t testing.TB, c net.Conn, r io.Reader) {
	t.Helper()
	const msg = "ping through the proxy"
	if _, err := io.WriteString(c, msg); err != nil {
		t.Fatal(err)
	}
	if err := c.(*net.TCPConn).CloseWrite(); err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(r)
	if err != nil || string(got) != msg {
		t.Fatalf("echo %q, %v; want %q", got, err, msg)
	}
}

// listen is a listener on 127.0.0.1, closed at the test's end.
func listen(t testing.TB) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln
}

func port(ln net.Listener) uint16 { return uint16(ln.Addr().(*net.TCPAddr).Port) }

// startEcho serves an echo upstream: everything back, then a half-close.
func startEcho(t testing.TB) uint16 {
	ln := listen(t)
	go acceptEach(ln, func(c net.Conn) {
		io.Copy(c, c)
		c.(*net.TCPConn).CloseWrite()
		io.Copy(io.Discard, c)
	})
	return port(ln)
}

// startHTTP serves an HTTP upstream that tells what it got.
func startHTTP(t testing.TB) uint16 {
	ln := listen(t)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "host=%s uri=%s proxy-auth=%q proxy-conn=%q", r.Host, r.RequestURI,
			r.Header.Get("Proxy-Authorization"), r.Header.Get("Proxy-Connection"))
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return port(ln)
}

// acceptEach serves every connection of ln in its own goroutine.
func acceptEach(ln net.Listener, serve func(net.Conn)) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go func() {
			defer c.Close()
			serve(c)
		}()
	}
}

// askerFunc adapts a function to Asker.
type askerFunc func(ctx context.Context, d Destination) error

func (f askerFunc) AskConnect(ctx context.Context, d Destination) error { return f(ctx, d) }

// errNo is a person's refusal.
var errNo = errors.New("the person said no")

// mustURL parses a test's URL.
func mustURL(t testing.TB, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
