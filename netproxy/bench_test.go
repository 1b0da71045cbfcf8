package netproxy

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"testing"
)

// downloadSize is one download in the throughput benchmarks.
const downloadSize = 100 << 20

// BenchmarkConnectDirect is a connection's cost without the proxy: dial
// and one round trip. BenchmarkConnectThroughProxy minus it is what the
// proxy adds.
func BenchmarkConnectDirect(b *testing.B) {
	echo := startEcho(b)
	addr := "127.0.0.1:" + strconv.Itoa(int(echo))
	for b.Loop() {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			b.Fatal(err)
		}
		roundTripByte(b, c, c)
		c.Close()
	}
}

// BenchmarkConnectThroughProxy: dial the proxy, CONNECT (resolve, judge,
// dial), one round trip through the tunnel.
func BenchmarkConnectThroughProxy(b *testing.B) {
	h := newHarness(b, nil)
	req := fmt.Appendf(nil, "CONNECT upstream.test:%d HTTP/1.1\r\n\r\n", h.echoPort)
	for b.Loop() {
		c, err := net.Dial("tcp", h.proxy)
		if err != nil {
			b.Fatal(err)
		}
		br := openTunnel(b, c, req)
		roundTripByte(b, c, br)
		c.Close()
	}
}

// BenchmarkDownload100MDirect reads 100 MB from a local source.
func BenchmarkDownload100MDirect(b *testing.B) {
	src := startSource(b)
	addr := "127.0.0.1:" + strconv.Itoa(int(src))
	b.SetBytes(downloadSize)
	for b.Loop() {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			b.Fatal(err)
		}
		drain(b, c)
		c.Close()
	}
}

// BenchmarkDownload100MProxy reads the same 100 MB through a CONNECT
// tunnel.
func BenchmarkDownload100MProxy(b *testing.B) {
	h := newHarness(b, nil)
	src := startSource(b)
	req := fmt.Appendf(nil, "CONNECT upstream.test:%d HTTP/1.1\r\n\r\n", src)
	b.SetBytes(downloadSize)
	for b.Loop() {
		c, err := net.Dial("tcp", h.proxy)
		if err != nil {
			b.Fatal(err)
		}
		drain(b, openTunnel(b, c, req)) // a large read of a bufio.Reader bypasses its buffer
		c.Close()
	}
}

// openTunnel sends a CONNECT request and reads its 200.
func openTunnel(b *testing.B, c net.Conn, req []byte) *bufio.Reader {
	if _, err := c.Write(req); err != nil {
		b.Fatal(err)
	}
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
	if err != nil || resp.StatusCode != http.StatusOK {
		b.Fatalf("CONNECT: %v %v", resp, err)
	}
	return br
}

// roundTripByte sends one byte and reads it back.
func roundTripByte(b *testing.B, w io.Writer, r io.Reader) {
	var one [1]byte
	if _, err := w.Write([]byte{'x'}); err != nil {
		b.Fatal(err)
	}
	if _, err := io.ReadFull(r, one[:]); err != nil {
		b.Fatal(err)
	}
}

// drain reads one download to its end.
func drain(b *testing.B, r io.Reader) {
	buf := make([]byte, 256<<10)
	var n int64
	for {
		m, err := r.Read(buf)
		n += int64(m)
		if err == io.EOF {
			break
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	if n != downloadSize {
		b.Fatalf("read %d bytes, want %d", n, downloadSize)
	}
}

// startSource serves downloadSize bytes to each connection, then ends it.
func startSource(b *testing.B) uint16 {
	ln := listen(b)
	chunk := bytes.Repeat([]byte("pathgrant"), (1<<20)/9)
	go acceptEach(ln, func(c net.Conn) {
		for left := downloadSize; left > 0; {
			n := min(left, len(chunk))
			if _, err := c.Write(chunk[:n]); err != nil {
				return
			}
			left -= n
		}
	})
	return port(ln)
}
