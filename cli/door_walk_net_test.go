package cli

import (
	"fmt"
	"net"
	"net/netip"
	"strings"
	"testing"
	"time"

	"pathgrant/sandbox/launch"
)

// The door walk's network table: every confined command has a network
// namespace of its own, on every door. What the machine serves (on its
// loopback, on its own other addresses, an X server over TCP, abstract
// sockets) is unreachable, directly and through pathgrant's proxy,
// whose way out refuses the machine's own addresses; the command's own
// loopback is its own.

// hostMarker is what every listener of the machine answers with: a
// command that prints it reached the machine.
const hostMarker = escaped

// proxyRefused begins the line pathgrant's proxy leaves for each
// destination it refused: a row through the proxy that has it was
// refused by the proxy, not by a proxy that was never there.
const proxyRefused = "pathgrant: connect to "

// netEscapes are the network rows of the walk's escapes; walkT is the
// walk's own test, which its X server on TCP lives as long as.
func (w *doorWalk) netEscapes(walkT *testing.T) []escape {
	ok := " && echo " + escaped
	proxy := fmt.Sprintf("http://127.0.0.1:%d", launch.ProxyPort)
	es := []escape{
		{name: "net: the machine's loopback, directly", setup: func(t *testing.T) (string, func(t *testing.T)) {
			return pyTCP(w.hostListener(t, "127.0.0.1"), hostMarker), nil
		}},
		{name: "net: the machine's loopback through the proxy (HTTP)", said: proxyRefused, setup: func(t *testing.T) (string, func(t *testing.T)) {
			return curlVia("--noproxy '' -x "+proxy, "http://"+w.hostListener(t, "127.0.0.1")+"/") + ok, nil
		}},
		{name: "net: the machine's loopback through the proxy (CONNECT)", said: proxyRefused, setup: func(t *testing.T) (string, func(t *testing.T)) {
			return pyTunnel(w.hostListener(t, "127.0.0.1")) + ok, nil
		}},
		{name: "net: localhost by name through the proxy (CONNECT)", said: proxyRefused, setup: func(t *testing.T) (string, func(t *testing.T)) {
			_, port, _ := net.SplitHostPort(w.hostListener(t, "127.0.0.1"))
			return pyTunnel("localhost:"+port) + ok, nil
		}},
		{name: "net: localhost by name through the proxy (SOCKS5)", said: proxyRefused, setup: func(t *testing.T) (string, func(t *testing.T)) {
			_, port, _ := net.SplitHostPort(w.hostListener(t, "127.0.0.1"))
			return pySocks("localhost", port) + ok, nil
		}},
		{name: "net: an abstract socket of the machine", setup: func(t *testing.T) (string, func(t *testing.T)) {
			name := w.abstractListener(t)
			py := fmt.Sprintf(`import socket; s=socket.socket(socket.AF_UNIX); s.connect("\0%s"); print(s.recv(64).decode())`, name)
			return "/usr/bin/python3 -c " + shellWord(py) + " | grep " + hostMarker + ok, nil
		}},
		{name: "net: an X server listening on TCP, on loopback", setup: func(t *testing.T) (string, func(t *testing.T)) {
			need(t, "xdotool")
			return "DISPLAY=127.0.0.1" + w.tcpDisplay(walkT) + " xdotool getmouselocation" + ok, nil
		}},
		{name: "net: an X server listening on TCP, through the proxy", said: proxyRefused, setup: func(t *testing.T) (string, func(t *testing.T)) {
			need(t, "xdotool")
			port := fmt.Sprint(6000 + w.tcpDisplayNumber(walkT))
			return "{ " + pyTunnel("127.0.0.1:"+port) + " || " + pySocks("localhost", port) + "; }" + ok, nil
		}},
		{name: "net: the cloud metadata address through the proxy", said: proxyRefused, setup: func(t *testing.T) (string, func(t *testing.T)) {
			return curlVia("-x "+proxy, "http://169.254.169.254/latest/meta-data/") + ok, nil
		}},
		{name: "net: around the proxy, said why", said: launch.NoRouteLine, setup: func(t *testing.T) (string, func(t *testing.T)) {
			addr := w.hostListener(t, ownAddresses(t)[0].String())
			return curlVia("--noproxy '*'", "http://"+addr+"/") + ok, nil
		}},
	}
	es = append(es, w.netSpellingEscapes()...)
	for _, a := range ownAddresses(walkT) {
		es = append(es, escape{name: "net: the machine's own address " + a.String() + ", directly", setup: func(t *testing.T) (string, func(t *testing.T)) {
			return pyTCP(w.hostListener(t, a.String()), hostMarker), nil
		}}, escape{name: "net: the machine's own address " + a.String() + " through the proxy", said: proxyRefused, setup: func(t *testing.T) (string, func(t *testing.T)) {
			return pyTunnel(w.hostListener(t, a.String())) + ok, nil
		}})
	}
	return es
}

// ownLoopbackServer is real work: a server the command starts on its own
// loopback answers it.
var ownLoopbackServer = realWork{"a server on the command's own loopback",
	"cd \"$(mktemp -d)\" && echo own-loopback > index.html && { /usr/bin/python3 -m http.server 18765 --bind 127.0.0.1 >/dev/null 2>&1 & } && " +
		"for i in $(seq 50); do curl -fsS http://127.0.0.1:18765/index.html 2>/dev/null | grep -q own-loopback && break; sleep 0.1; done && " +
		"curl -fsS http://127.0.0.1:18765/index.html | grep -q own-loopback && kill %1",
	[]string{"python3", "curl"}}

// pyTCP is a script that connects to addr and prints what it reads: the
// marker when it got through.
func pyTCP(addr, marker string) string {
	host, port, _ := net.SplitHostPort(addr)
	py := fmt.Sprintf(`import socket; s=socket.create_connection((%q, %s), timeout=5); print(s.recv(64).decode())`, host, port)
	return "/usr/bin/python3 -c " + shellWord(py) + " | grep " + marker
}

// pyTunnel is a script asking pathgrant's proxy, on the command's own
// loopback, for a tunnel to addr (HTTP CONNECT): it exits 0 only when the
// proxy made it.
func pyTunnel(addr string) string {
	py := fmt.Sprintf(`import socket,sys; s=socket.create_connection(("127.0.0.1", %d), timeout=10); `+
		`s.sendall(b"CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n"); a=s.recv(4096).decode(); print(a.splitlines()[0] if a else "no answer"); `+
		`sys.exit(0 if a.split(" ")[1:2] == ["200"] else 1)`, launch.ProxyPort, addr, addr)
	return "/usr/bin/python3 -c " + shellWord(py)
}

// pySocks is a script asking pathgrant's proxy for a SOCKS5 connection to
// host (a name, resolved by the proxy) and port: it exits 0 only when the
// proxy made it.
func pySocks(host, port string) string {
	py := fmt.Sprintf(`import socket,struct,sys; s=socket.create_connection(("127.0.0.1", %d), timeout=10); `+
		`s.sendall(b"\x05\x01\x00"); s.recv(2); h=%q.encode(); `+
		`s.sendall(b"\x05\x01\x00\x03"+bytes([len(h)])+h+struct.pack(">H", %s)); r=s.recv(10); print("socks reply", r[1:2]); `+
		`sys.exit(0 if r[1:2] == b"\x00" else 1)`, launch.ProxyPort, host, port)
	return "/usr/bin/python3 -c " + shellWord(py)
}

// curlVia fetches url with curl's proxy options opts, printing the body;
// it fails on an HTTP error (the proxy's refusal is a 403).
func curlVia(opts, url string) string {
	return "curl -fsS --max-time 10 " + opts + " " + shellWord(url)
}

// hostListener is a listener of the machine's on host (a free port),
// answering every connection with the marker as an HTTP answer; its
// address as host:port.
func (w *doorWalk) hostListener(t *testing.T, host string) string {
	t.Helper()
	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go answerAll(ln, "HTTP/1.0 200 OK\r\nContent-Length: "+fmt.Sprint(len(hostMarker)+1)+"\r\n\r\n"+hostMarker+"\n")
	return ln.Addr().String()
}

// abstractListener is an abstract Unix socket of the machine answering
// with the marker; its name without the leading NUL.
func (w *doorWalk) abstractListener(t *testing.T) string {
	t.Helper()
	name := fmt.Sprintf("pathgrant-walk-net-%d", time.Now().UnixNano())
	ln, err := net.Listen("unix", "@"+name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go answerAll(ln, hostMarker+"\n")
	return name
}

// answerAll writes answer to every connection ln accepts.
func answerAll(ln net.Listener, answer string) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go func() {
			defer c.Close()
			c.SetDeadline(time.Now().Add(5 * time.Second))
			c.Write([]byte(answer))
			c.Read(make([]byte, 1024))
		}()
	}
}

// ownAddresses are the machine's own non-loopback, non-link-local
// addresses (one of each family at most): the walk's listeners on them
// must be unreachable too.
func ownAddresses(t *testing.T) []netip.Addr {
	t.Helper()
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	var v4, v6 netip.Addr
	for _, a := range addrs {
		p, err := netip.ParsePrefix(a.String())
		if err != nil {
			continue
		}
		ip := p.Addr()
		switch {
		case ip.IsLoopback() || ip.IsLinkLocalUnicast():
		case ip.Is4() && !v4.IsValid():
			v4 = ip
		case ip.Is6() && !v6.IsValid():
			v6 = ip
		}
	}
	var out []netip.Addr
	for _, a := range []netip.Addr{v4, v6} {
		if a.IsValid() {
			out = append(out, a)
		}
	}
	if len(out) == 0 {
		t.Fatal("this machine has no address but loopback: the walk cannot check its own addresses")
	}
	return out
}

// tcpDisplay is the walk's X server that listens on TCP with no access
// control, started once: its display as ":N".
func (w *doorWalk) tcpDisplay(t *testing.T) string {
	w.tcpX.Do(func() { w.tcpXDisplay = startXvfbWith(t, "-listen", "tcp", "-ac") })
	if w.tcpXDisplay == "" {
		t.Fatal("no X server on TCP")
	}
	return w.tcpXDisplay
}

// tcpDisplayNumber is tcpDisplay's N.
func (w *doorWalk) tcpDisplayNumber(t *testing.T) int {
	var n int
	fmt.Sscanf(strings.TrimPrefix(w.tcpDisplay(t), ":"), "%d", &n)
	return n
}
