package netproxy

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestServer: the proxy against real connections, one row per behaviour.
func TestServer(t *testing.T) {
	cases := []struct {
		name      string
		configure func(*Server)
		run       func(t *testing.T, h *harness)
	}{
		{name: "CONNECT tunnels, and a half-close ends it", run: func(t *testing.T, h *harness) {
			c, br, resp := h.connect(t, fmt.Sprintf("upstream.test:%d", h.echoPort))
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("status %s", resp.Status)
			}
			echoThrough(t, c, br)
			if got, want := h.dials(), []string{fmt.Sprintf("%s:%d", fakePublic4, h.echoPort)}; !slices.Equal(got, want) {
				t.Errorf("dialled %v, want %v", got, want)
			}
		}},
		{name: "bytes sent before the answer go through", run: func(t *testing.T, h *harness) {
			c := h.client(t)
			target := fmt.Sprintf("upstream.test:%d", h.echoPort)
			fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\nearly", target, target)
			c.(*net.TCPConn).CloseWrite()
			got, err := io.ReadAll(c)
			if want := "HTTP/1.1 200 Connection established\r\n\r\nearly"; err != nil || string(got) != want {
				t.Errorf("got %q, %v; want %q", got, err, want)
			}
		}},
		{name: "absolute-form GET forwarded in origin form", run: func(t *testing.T, h *harness) {
			c := h.client(t)
			fmt.Fprintf(c, "GET http://upstream.test:%d/path?q=1 HTTP/1.1\r\nHost: upstream.test:%[1]d\r\n"+
				"Proxy-Authorization: Basic eDp5\r\nProxy-Connection: keep-alive\r\n\r\n", h.httpPort)
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			want := fmt.Sprintf(`host=upstream.test:%d uri=/path?q=1 proxy-auth="" proxy-conn=""`, h.httpPort)
			if resp.StatusCode != http.StatusOK || string(body) != want {
				t.Errorf("%s %q, want 200 %q", resp.Status, body, want)
			}
		}},
		{name: "net/http's client through the proxy", run: func(t *testing.T, h *harness) {
			client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(mustURL(t, "http://u:p@"+h.proxy))}, Timeout: testTimeout}
			resp, err := client.Get(fmt.Sprintf("http://upstream.test:%d/x", h.httpPort))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if !strings.Contains(string(body), `uri=/x proxy-auth=""`) {
				t.Errorf("body %q", body)
			}
		}},
		{name: "keep-alive checks each request's host", run: func(t *testing.T, h *harness) {
			c := h.client(t)
			br := bufio.NewReader(c)
			for i, host := range []string{"upstream.test", "upstream.test", "mixed.test"} {
				fmt.Fprintf(c, "GET http://%s:%d/%d HTTP/1.1\r\nHost: %[1]s\r\n\r\n", host, h.httpPort, i)
				resp, err := http.ReadResponse(br, nil)
				if err != nil {
					t.Fatalf("request %d: %v", i, err)
				}
				io.Copy(io.Discard, resp.Body)
				want := http.StatusOK
				if host == "mixed.test" {
					want = http.StatusForbidden
				}
				if resp.StatusCode != want {
					t.Errorf("request %d to %s: %s, want %d", i, host, resp.Status, want)
				}
			}
			if n := len(h.dials()); n != 1 {
				t.Errorf("%d dials for two requests to one host, want 1 (kept alive)", n)
			}
		}},
		{name: "SOCKS5 with a name", run: func(t *testing.T, h *harness) {
			c, rep := h.socks(t, socksAtypDomain, socksDomain("Upstream.Test."), h.echoPort)
			if rep != socksSucceeded {
				t.Fatalf("reply %#x", rep)
			}
			echoThrough(t, c, c)
		}},
		{name: "SOCKS5 with an IPv4 address", run: func(t *testing.T, h *harness) {
			a := fakePublic4.As4()
			c, rep := h.socks(t, socksAtypIPv4, a[:], h.echoPort)
			if rep != socksSucceeded {
				t.Fatalf("reply %#x", rep)
			}
			echoThrough(t, c, c)
		}},
		{name: "SOCKS5 with an IPv6 address", run: func(t *testing.T, h *harness) {
			a := fakePublic6.As16()
			c, rep := h.socks(t, socksAtypIPv6, a[:], h.echoPort)
			if rep != socksSucceeded {
				t.Fatalf("reply %#x", rep)
			}
			echoThrough(t, c, c)
		}},
		{name: "a name resolving to public and loopback is refused with 403", run: func(t *testing.T, h *harness) {
			target := fmt.Sprintf("mixed.test:%d", h.echoPort)
			_, _, resp := h.connect(t, target)
			body, _ := io.ReadAll(resp.Body)
			want := "pathgrant refused connect to " + target + ": 127.0.0.1 is a loopback address of this machine"
			if resp.StatusCode != http.StatusForbidden || resp.Status != "403 "+want || string(body) != want+"\n" {
				t.Errorf("got %q body %q, want 403 %q", resp.Status, body, want)
			}
			if got := h.refusals(); len(got) != 1 || !strings.HasPrefix(got[0], target) {
				t.Errorf("Refused told %v", got)
			}
			if d := h.dials(); len(d) != 0 {
				t.Errorf("dialled %v for a refused destination", d)
			}
		}},
		{name: "SOCKS5 to loopback is refused with 0x02", run: func(t *testing.T, h *harness) {
			_, rep := h.socks(t, socksAtypIPv4, []byte{127, 0, 0, 1}, h.echoPort)
			if rep != socksNotAllowed {
				t.Errorf("reply %#x, want 0x02", rep)
			}
		}},
		{name: "SOCKS5 to a name the policy refuses gets 0x02", configure: func(s *Server) {
			s.Policy = func() Policy { return Policy{Refuse: []string{"*.test"}} }
		}, run: func(t *testing.T, h *harness) {
			_, rep := h.socks(t, socksAtypDomain, socksDomain("upstream.test"), h.echoPort)
			if rep != socksNotAllowed {
				t.Errorf("reply %#x, want 0x02", rep)
			}
			if got := h.refusals(); len(got) != 1 || !strings.Contains(got[0], `refuse = ["*.test"]`) {
				t.Errorf("Refused told %v", got)
			}
		}},
		{name: "a failed dial is 0x05 and 502", run: func(t *testing.T, h *harness) {
			ln := listen(t)
			closed := port(ln)
			ln.Close()
			_, rep := h.socks(t, socksAtypDomain, socksDomain("upstream.test"), closed)
			if rep != socksConnRefused {
				t.Errorf("reply %#x, want 0x05", rep)
			}
			_, _, resp := h.connect(t, fmt.Sprintf("upstream.test:%d", closed))
			if resp.StatusCode != http.StatusBadGateway {
				t.Errorf("status %s, want 502", resp.Status)
			}
		}},
		{name: "an unknown name is 0x04 and 502", run: func(t *testing.T, h *harness) {
			_, rep := h.socks(t, socksAtypDomain, socksDomain("nowhere.test"), 80)
			if rep != socksHostUnreachable {
				t.Errorf("reply %#x, want 0x04", rep)
			}
			_, _, resp := h.connect(t, "nowhere.test:80")
			if resp.StatusCode != http.StatusBadGateway {
				t.Errorf("status %s, want 502", resp.Status)
			}
		}},
		{name: "the name is resolved once; a rebinding answer is never dialled", configure: func(s *Server) {
			var calls atomic.Int32
			s.Resolve = func(context.Context, string) ([]netip.Addr, error) {
				if calls.Add(1) == 1 {
					return []netip.Addr{fakePublic4}, nil
				}
				return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
			}
		}, run: func(t *testing.T, h *harness) {
			c, br, resp := h.connect(t, fmt.Sprintf("rebind.test:%d", h.echoPort))
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("status %s", resp.Status)
			}
			echoThrough(t, c, br)
			if got, want := h.dials(), []string{fmt.Sprintf("%s:%d", fakePublic4, h.echoPort)}; !slices.Equal(got, want) {
				t.Errorf("dialled %v, want %v", got, want)
			}
		}},
		{name: "asked and allowed, in mode ask before the name is resolved", configure: func(s *Server) {
			s.Policy = func() Policy { return Policy{Mode: Ask} }
			s.Ask = askerFunc(func(_ context.Context, d Destination) error {
				if len(d.Addrs) != 0 {
					return fmt.Errorf("asked about %v", d.Addrs)
				}
				return nil
			})
		}, run: func(t *testing.T, h *harness) {
			c, br, resp := h.connect(t, fmt.Sprintf("upstream.test:%d", h.echoPort))
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("status %s", resp.Status)
			}
			echoThrough(t, c, br)
		}},
		{name: "asked and refused: the reason is in the 403", configure: func(s *Server) {
			s.Ask = askerFunc(func(context.Context, Destination) error { return errNo })
		}, run: func(t *testing.T, h *harness) {
			_, _, resp := h.connect(t, fmt.Sprintf("private.test:%d", h.echoPort))
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != http.StatusForbidden || !strings.Contains(resp.Status, errNo.Error()) || !strings.Contains(string(body), errNo.Error()) {
				t.Errorf("got %q body %q", resp.Status, body)
			}
		}},
		{name: "asking with no one to ask is refused", run: func(t *testing.T, h *harness) {
			_, _, resp := h.connect(t, fmt.Sprintf("private.test:%d", h.echoPort))
			if resp.StatusCode != http.StatusForbidden || !strings.Contains(resp.Status, "no one to ask") {
				t.Errorf("got %q", resp.Status)
			}
		}},
		{name: "a refused bad request: origin form", run: func(t *testing.T, h *harness) {
			wantStatus(t, h, "GET /path HTTP/1.1\r\nHost: x\r\n\r\n", http.StatusBadRequest)
		}},
		{name: "a refused bad request: not HTTP", run: func(t *testing.T, h *harness) {
			wantStatus(t, h, "hello there\r\n\r\n", http.StatusBadRequest)
		}},
		{name: "a refused bad request: CONNECT without a port", run: func(t *testing.T, h *harness) {
			wantStatus(t, h, "CONNECT upstream.test HTTP/1.1\r\n\r\n", http.StatusBadRequest)
		}},
		{name: "a refused bad request: CONNECT to a non-name", run: func(t *testing.T, h *harness) {
			wantStatus(t, h, "CONNECT bad%00name:80 HTTP/1.1\r\n\r\n", http.StatusBadRequest)
		}},
		{name: "a refused bad request: https absolute form", run: func(t *testing.T, h *harness) {
			wantStatus(t, h, "GET https://upstream.test/ HTTP/1.1\r\nHost: upstream.test\r\n\r\n", http.StatusBadRequest)
		}},
		{name: "a head over 16 KiB", run: func(t *testing.T, h *harness) {
			wantStatus(t, h, "GET http://upstream.test/ HTTP/1.1\r\nX-Long: "+strings.Repeat("a", HeadLimit)+"\r\n\r\n", http.StatusRequestHeaderFieldsTooLarge)
		}},
		{name: "SOCKS5 BIND is 0x07", run: func(t *testing.T, h *harness) {
			wantSOCKS(t, h, []byte{5, 1, 0, 5, 2, 0, 1, 1, 2, 3, 4, 0, 80}, []byte{5, 0, 5, socksCmdNotSupported})
		}},
		{name: "SOCKS5 address type 9 is 0x08", run: func(t *testing.T, h *harness) {
			wantSOCKS(t, h, []byte{5, 1, 0, 5, 1, 0, 9, 1, 2, 3, 4, 0, 80}, []byte{5, 0, 5, socksAtypNotSupported})
		}},
		{name: "SOCKS5 with only password authentication is turned away", run: func(t *testing.T, h *harness) {
			wantSOCKS(t, h, []byte{5, 1, 2}, []byte{5, socksNoAcceptable})
		}},
		{name: "SOCKS5 with a name no DNS has is 0x01", run: func(t *testing.T, h *harness) {
			wantSOCKS(t, h, append(append([]byte{5, 1, 0, 5, 1, 0, 3}, socksDomain("a b")...), 0, 80), []byte{5, 0, 5, socksGeneralFailure})
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.run(t, newHarness(t, tc.configure))
		})
	}
}

// wantStatus sends raw and wants an answer of status code, then the end.
func wantStatus(t *testing.T, h *harness, raw string, code int) {
	t.Helper()
	c := h.client(t)
	io.WriteString(c, raw)
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != code || !strings.HasPrefix(string(body), "pathgrant") {
		t.Errorf("got %s %q, want %d", resp.Status, body, code)
	}
	if _, err := br.ReadByte(); err != io.EOF {
		t.Errorf("the connection goes on after %d: %v", code, err)
	}
}

// wantSOCKS sends raw and wants exactly want back, then the end.
func wantSOCKS(t *testing.T, h *harness, raw, want []byte) {
	t.Helper()
	c := h.client(t)
	c.Write(raw)
	got, err := io.ReadAll(c)
	if err != nil || len(got) < len(want) || !slices.Equal(got[:len(want)], want) {
		t.Errorf("got % x, %v; want % x…", got, err, want)
	}
}

// TestAskCancelledOnHangUp: a client that leaves while the person is being
// asked cancels the question.
func TestAskCancelledOnHangUp(t *testing.T) {
	for _, proto := range []string{"http", "socks5"} {
		t.Run(proto, func(t *testing.T) {
			asked := make(chan struct{})
			ended := make(chan error, 1)
			h := newHarness(t, func(s *Server) {
				s.Policy = func() Policy { return Policy{Mode: Ask} }
				s.Ask = askerFunc(func(ctx context.Context, _ Destination) error {
					close(asked)
					<-ctx.Done()
					ended <- context.Cause(ctx)
					return ctx.Err()
				})
			})
			c := h.client(t)
			if proto == "http" {
				io.WriteString(c, "CONNECT upstream.test:443 HTTP/1.1\r\n\r\n")
			} else {
				c.Write(append(append([]byte{5, 1, 0, 5, 1, 0, 3}, socksDomain("upstream.test")...), 1, 187))
			}
			waitFor(t, asked, "the question")
			c.Close()
			select {
			case cause := <-ended:
				if !errors.Is(cause, errHungUp) {
					t.Errorf("the question ended by %v, want %v", cause, errHungUp)
				}
			case <-time.After(testTimeout):
				t.Fatal("the question was not cancelled when the client hung up")
			}
			if got := h.refusals(); len(got) != 0 {
				t.Errorf("a client that left counts as refused: %v", got)
			}
		})
	}
}

// TestSlowClientDropped: a head that does not arrive within HeadTimeout
// ends the connection.
func TestSlowClientDropped(t *testing.T) {
	cases := []struct {
		name, sent string
		want       string // the start of what the client reads before the end
	}{
		{"http, half a head", "CONNECT upstream.test:443 HTTP/1.1\r\nHost: upstr", "HTTP/1.1 408 "},
		{"http, nothing", "", ""},
		{"socks5, half a greeting", "\x05\x02\x00", ""},
		{"socks5, half a request", "\x05\x01\x00\x05\x01\x00\x03\x20upstr", "\x05\x00"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, func(s *Server) { s.HeadTimeout = 50 * time.Millisecond })
			c := h.client(t)
			io.WriteString(c, tc.sent)
			got, err := io.ReadAll(c)
			if err != nil {
				t.Fatalf("the connection was not ended: %v", err)
			}
			if !strings.HasPrefix(string(got), tc.want) {
				t.Errorf("read %q, want %q first", got, tc.want)
			}
		})
	}
}

// TestConnLimit: one connection over the bound is turned away with a
// message, in either protocol, while the others are served.
func TestConnLimit(t *testing.T) {
	h := newHarness(t, func(s *Server) { s.ConnLimit = 2 })
	target := fmt.Sprintf("upstream.test:%d", h.echoPort)
	for range 2 { // held open: each is being served
		if _, _, resp := h.connect(t, target); resp.StatusCode != http.StatusOK {
			t.Fatalf("status %s", resp.Status)
		}
	}
	t.Run("http", func(t *testing.T) {
		_, _, resp := h.connect(t, target)
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), "2 connections already open") {
			t.Errorf("got %s %q", resp.Status, body)
		}
	})
	t.Run("socks5", func(t *testing.T) {
		_, rep := h.socks(t, socksAtypDomain, socksDomain("upstream.test"), h.echoPort)
		if rep != socksGeneralFailure {
			t.Errorf("reply %#x, want 0x01", rep)
		}
	})
}

// TestServeClosesOnReturn: when Serve's ctx ends, every connection it
// served is closed before it returns.
func TestServeClosesOnReturn(t *testing.T) {
	echo := startEcho(t)
	srv := &Server{
		Policy: func() Policy { return Policy{} },
		Own:    func(netip.Addr) bool { return false },
		Resolve: func(context.Context, string) ([]netip.Addr, error) {
			return []netip.Addr{fakePublic4}, nil
		},
		Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, network, fmt.Sprintf("127.0.0.1:%d", echo))
		},
	}
	ln := listen(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	h := &harness{proxy: ln.Addr().String()}
	c, br, resp := h.connect(t, "upstream.test:7")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %s", resp.Status)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Serve: %v", err)
	}
	c.SetReadDeadline(time.Now().Add(testTimeout))
	if _, err := br.ReadByte(); err != io.EOF {
		t.Errorf("the tunnel is still open after Serve returned: %v", err)
	}
}

// waitFor waits for ch, failing the test after testTimeout.
func waitFor(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(testTimeout):
		t.Fatalf("no %s within %s", what, testTimeout)
	}
}

// TestPolicyReadPerConnection: a policy change applies to the next
// connection, and to the next request on a kept one.
func TestPolicyReadPerConnection(t *testing.T) {
	var mode atomic.Value
	mode.Store(AllowPublic)
	h := newHarness(t, func(s *Server) {
		s.Policy = func() Policy { return Policy{Mode: mode.Load().(Mode)} }
	})
	c := h.client(t)
	br := bufio.NewReader(c)
	for _, tc := range []struct {
		mode Mode
		want int
	}{{AllowPublic, http.StatusOK}, {Off, http.StatusForbidden}} {
		mode.Store(tc.mode)
		fmt.Fprintf(c, "GET http://upstream.test:%d/ HTTP/1.1\r\nHost: upstream.test\r\n\r\n", h.httpPort)
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		if resp.StatusCode != tc.want {
			t.Errorf("mode %s: %s, want %d", tc.mode, resp.Status, tc.want)
		}
	}
	mode.Store(AllowPublic)
	if _, _, resp := h.connect(t, fmt.Sprintf("upstream.test:%d", h.echoPort)); resp.StatusCode != http.StatusOK {
		t.Errorf("after the reload back: %s", resp.Status)
	}
}
