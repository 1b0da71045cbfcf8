package ipc

import (
	"context"
	"io"
	"net"
	"net/http"
	"slices"
	"testing"
	"time"

	"pathgrant/apiclient"
	"pathgrant/guard"
	"pathgrant/wire"
)

// BenchmarkCheckVsEcho measures, alternating in one run on the same
// machine, three round trips of about the same size over a Unix socket:
// echo, a raw echo (the socket's own cost, the floor); http, the same
// client speaking HTTP/1.1 to a bare net/http server that answers a fixed
// check answer (the framing's and the server's own cost); and check, an
// allowed path check through the daemon (peer check, resolver, grants,
// guard, encoding). It reports p50 and p99 of each; p50-ratio is check
// over echo at p50, p99-ratio the same at p99. Targets: p50-ratio at most
// 3.5, p99-ratio at most 10. BenchmarkCheckStages splits the check's own
// work.
func BenchmarkCheckVsEcho(b *testing.B) {
	e := newTestEnv(b, func(c *Config) { c.Lineage = nil }) // the real /proc walk
	c := e.clientFor(e.register(wire.SessionRequest{Agent: "bench"}))
	req := wire.CheckRequest{Op: guard.OpRead, Path: e.work + "/main.go"}
	echo := startEcho(b)
	defer echo.Close()
	bare := startBareHTTP(b)
	msg := make([]byte, 400) // about the size of a check request and answer
	var checks, echoes, https []time.Duration
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
		t2 := time.Now()
		var ans wire.Answer
		if err := bare.Do(context.Background(), http.MethodPost, "/v1/check", req, &ans); err != nil {
			b.Fatal(err)
		}
		checks, echoes, https = append(checks, t1.Sub(t0)), append(echoes, t2.Sub(t1)), append(https, time.Since(t2))
	}
	cp50, cp99 := percentiles(checks)
	ep50, ep99 := percentiles(echoes)
	hp50, hp99 := percentiles(https)
	us := func(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
	b.ReportMetric(us(cp50), "check-p50-µs")
	b.ReportMetric(us(cp99), "check-p99-µs")
	b.ReportMetric(us(ep50), "echo-p50-µs")
	b.ReportMetric(us(ep99), "echo-p99-µs")
	b.ReportMetric(us(hp50), "http-p50-µs")
	b.ReportMetric(us(hp99), "http-p99-µs")
	b.ReportMetric(float64(cp50)/float64(max(ep50, 1)), "p50-ratio")
	b.ReportMetric(float64(cp99)/float64(max(ep99, 1)), "p99-ratio")
}

func percentiles(d []time.Duration) (p50, p99 time.Duration) {
	slices.Sort(d)
	return d[len(d)/2], d[len(d)*99/100]
}

// startEcho serves one echo connection on a fresh Unix socket.
func startEcho(b *testing.B) net.Conn {
	ln := listenUnix(b)
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		_, _ = io.Copy(conn, conn)
	}()
	conn, err := net.Dial("unix", ln.Addr().String())
	if err != nil {
		b.Fatal(err)
	}
	return conn
}

// startBareHTTP serves, on a fresh Unix socket, a net/http server whose
// only handler reads the body and answers a fixed allowed check, and
// returns the daemon's own client for it.
func startBareHTTP(b *testing.B) *apiclient.Client {
	ln := listenUnix(b)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		writeJSON(w, http.StatusOK, wire.Answer{Decision: guard.Allow, Reason: "inside the workspace", Path: "/home/u/work/main.go"})
	})}
	go func() { _ = srv.Serve(ln) }()
	b.Cleanup(func() { srv.Close() })
	return apiclient.New(ln.Addr().String())
}

func listenUnix(b *testing.B) net.Listener {
	ln, err := net.Listen("unix", b.TempDir()+"/bench.sock")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ln.Close() })
	return ln
}
