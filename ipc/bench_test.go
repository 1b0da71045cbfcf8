package ipc

import (
	"context"
	"io"
	"net"
	"slices"
	"testing"
	"time"

	"pathgrant/guard"
	"pathgrant/wire"
)

// BenchmarkCheckVsEcho measures, in one run, the round trip of an allowed
// path check over the daemon's socket and of a raw Unix-socket echo of a
// similar size on the same machine, and reports p50/p99 of both and their
// ratio. Targets: check p50 under 100 µs, p50 ratio at most 5x.
func BenchmarkCheckVsEcho(b *testing.B) {
	e := newTestEnv(b, func(c *Config) { c.Lineage = nil }) // the real /proc walk
	c := e.clientFor(e.register(wire.SessionRequest{Agent: "bench"}))
	req := wire.CheckRequest{Op: guard.OpRead, Path: e.work + "/main.go"}
	echo := startEcho(b)
	defer echo.Close()
	msg := make([]byte, 400) // about the size of a check request and answer
	var checks, echoes []time.Duration
	for b.Loop() {
		t0 := time.Now()
		if ans, err := c.Check(context.Background(), req); err != nil || ans.Decision != guard.Allow {
			b.Fatalf("%+v %v", ans, err)
		}
		t1 := time.Now()
		if _, err := echo.Write(msg); err != nil {
			b.Fatal(err)
		}
		if _, err := io.ReadFull(echo, msg); err != nil {
			b.Fatal(err)
		}
		checks, echoes = append(checks, t1.Sub(t0)), append(echoes, time.Since(t1))
	}
	cp50, cp99 := percentiles(checks)
	ep50, ep99 := percentiles(echoes)
	b.ReportMetric(float64(cp50.Microseconds()), "check-p50-µs")
	b.ReportMetric(float64(cp99.Microseconds()), "check-p99-µs")
	b.ReportMetric(float64(ep50.Microseconds()), "echo-p50-µs")
	b.ReportMetric(float64(ep99.Microseconds()), "echo-p99-µs")
	b.ReportMetric(float64(cp50)/float64(max(ep50, 1)), "p50-ratio")
}

func percentiles(d []time.Duration) (p50, p99 time.Duration) {
	slices.Sort(d)
	return d[len(d)/2], d[len(d)*99/100]
}

// startEcho serves one echo connection on a fresh Unix socket.
func startEcho(b *testing.B) net.Conn {
	path := b.TempDir() + "/echo.sock"
	ln, err := net.Listen("unix", path)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ln.Close() })
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		_, _ = io.Copy(conn, conn)
	}()
	conn, err := net.Dial("unix", path)
	if err != nil {
		b.Fatal(err)
	}
	return conn
}
