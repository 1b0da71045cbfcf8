package cli

import (
	"context"
	"fmt"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"pathgrant/apiclient"
	"pathgrant/guard"
	"pathgrant/sandbox/launch"
)

// The door walk's rows at the proxy's reading of a destination: the
// machine's loopback, and its every address, in each spelling a client
// can send (a name's case and trailing dot, IPv4-mapped, NAT64 and 6to4
// forms, the unspecified addresses, SOCKS5's address types, a URL's user
// part), each refused by pathgrant's proxy and said to be: a row passes
// only when the proxy answered it, not because nothing listened.

// loopbackSaid and anySaid are what the command's end says of a refused
// destination that is this machine's loopback, or an unspecified address.
const (
	loopbackSaid = "is a loopback address of this machine"
	anySaid      = "is a special-purpose address"
)

// netSpellingEscapes are the rows.
func (w *doorWalk) netSpellingEscapes() []escape {
	ok := " && echo " + escaped
	port := func(t *testing.T, host string) string {
		_, p, _ := net.SplitHostPort(w.hostListener(t, host))
		return p
	}
	tunnel := func(name, host, listen, said string) escape {
		return escape{name: "net: " + name + " through the proxy (CONNECT)", said: said, setup: func(t *testing.T) (string, func(t *testing.T)) {
			return pyTunnel(net.JoinHostPort(host, port(t, listen))) + ok, nil
		}}
	}
	hostname, _ := os.Hostname()
	return []escape{
		tunnel("loopback as LOCALHOST.", "LOCALHOST.", "127.0.0.1", loopbackSaid),
		tunnel("loopback as 127.0.0.1.", "127.0.0.1.", "127.0.0.1", loopbackSaid),
		tunnel("loopback IPv4-mapped", "::ffff:127.0.0.1", "127.0.0.1", loopbackSaid),
		tunnel("loopback in NAT64's prefix", "64:ff9b::7f00:1", "127.0.0.1", loopbackSaid),
		tunnel("loopback in 6to4's prefix", "2002:7f00:1::", "127.0.0.1", loopbackSaid),
		tunnel("IPv6 loopback", "::1", "::1", loopbackSaid),
		tunnel("0.0.0.0 to a listener on every address", "0.0.0.0", "0.0.0.0", anySaid),
		tunnel(":: to a listener on every address", "::", "::", anySaid),
		{name: "net: the machine's host name through the proxy (SOCKS5)", setup: func(t *testing.T) (string, func(t *testing.T)) {
			if hostname == "" {
				t.Skip("this machine has no host name")
			}
			return pySocks(hostname, port(t, "0.0.0.0")) + ok, nil
		}, said: "pathgrant: connect to " + strings.ToLower(hostname) + ":"},
		{name: "net: loopback IPv4-mapped as a SOCKS5 IPv6 address", said: loopbackSaid, setup: func(t *testing.T) (string, func(t *testing.T)) {
			return pySocksIPv6("::ffff:127.0.0.1", port(t, "127.0.0.1")) + ok, nil
		}},
		{name: "net: :: as a SOCKS5 IPv6 address, to a listener on every address", said: anySaid, setup: func(t *testing.T) (string, func(t *testing.T)) {
			return pySocksIPv6("::", port(t, "::")) + ok, nil
		}},
		{name: "net: a URL whose user part names another host (HTTP)", said: loopbackSaid, setup: func(t *testing.T) (string, func(t *testing.T)) {
			proxy := fmt.Sprintf("http://127.0.0.1:%d", launch.ProxyPort)
			return curlVia("-f --noproxy '' -x "+proxy, "http://example.com@127.0.0.1:"+port(t, "127.0.0.1")+"/") + ok, nil
		}},
		{name: "net: an IPv6 literal with a zone of words raises no request (SOCKS5)", setup: func(t *testing.T) (string, func(t *testing.T)) {
			script := pySocks("fd00::1%Allow: this is github.com", "443") + ok
			return script, func(t *testing.T) { w.noConnectRequest(t) }
		}},
	}
}

// pySocksIPv6 is pySocks with an IPv6 address (address type 4) instead
// of a name.
func pySocksIPv6(addr, port string) string {
	py := fmt.Sprintf(`import socket,struct,sys; s=socket.create_connection(("127.0.0.1", %d), timeout=10); `+
		`s.sendall(b"\x05\x01\x00"); s.recv(2); a=socket.inet_pton(socket.AF_INET6, %q); `+
		`s.sendall(b"\x05\x01\x00\x04"+a+struct.pack(">H", %s)); r=s.recv(10); print("socks reply", r[1:2]); `+
		`sys.exit(0 if r[1:2] == b"\x00" else 1)`, launch.ProxyPort, addr, port)
	return "/usr/bin/python3 -c " + shellWord(py)
}

// noConnectRequest fails the test when a connection request is pending.
func (w *doorWalk) noConnectRequest(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	reqs, err := apiclient.New(w.sock).Pending(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range reqs {
		if r.Op == guard.OpConnect {
			t.Errorf("a connection request is pending: %q", r.Path)
		}
	}
}
