package ipc

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"pathgrant/apiclient"
	"pathgrant/guard"
	"pathgrant/wire"
)

// TestLoad: 64 concurrent clients send 20,000 checks of a mixed workload
// over the socket. No error, every answer as expected, and no goroutine
// left behind once the clients are gone. Bounded in count; loopback only.
func TestLoad(t *testing.T) {
	const clients, total = 64, 20000
	n := total
	if testing.Short() {
		n = 2000
	}
	e := newTestEnv(t)
	before := runtime.NumGoroutine()
	workload := []struct {
		req  wire.CheckRequest
		want guard.Verdict
	}{
		{wire.CheckRequest{Command: "cat main.go | wc -l"}, guard.Allow},
		{wire.CheckRequest{Op: guard.OpWrite, Path: e.work + "/out.txt"}, guard.Allow},
		{wire.CheckRequest{Command: "rm ~/Downloads/report.csv"}, guard.Deny},
		{wire.CheckRequest{Command: "cat ~/Downloads/report.csv"}, guard.Deny},
		{wire.CheckRequest{Command: "eval ls"}, guard.Deny},
	}
	var sent, failed atomic.Int64
	var wg sync.WaitGroup
	sessions := make([]wire.SessionResponse, clients)
	for i := range sessions { // before any check marks the played agent
		sessions[i] = e.register(wire.SessionRequest{Agent: fmt.Sprint("load-", i)})
	}
	for i := range clients {
		c := e.clientFor(sessions[i])
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer c.CloseIdle()
			for j := 0; sent.Add(1) <= int64(n); j++ {
				w := workload[(i+j)%len(workload)]
				ans, err := c.Check(context.Background(), w.req)
				if err != nil || ans.Decision != w.want {
					if failed.Add(1) < 5 {
						t.Errorf("client %d: %+v %v", i, ans, err)
					}
				}
			}
		}()
	}
	wg.Wait()
	e.client.CloseIdle()
	if failed.Load() > 0 {
		t.Fatalf("%d of %d checks failed", failed.Load(), n)
	}
	waitGoroutines(t, before)
}

// waitGoroutines waits for connection goroutines to wind down and fails if
// more remain than before the load.
func waitGoroutines(t *testing.T, before int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before+2 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if after := runtime.NumGoroutine(); after > before+2 {
		buf := make([]byte, 1<<16)
		t.Fatalf("goroutines: %d before, %d after\n%s", before, after, buf[:runtime.Stack(buf, true)])
	}
}

// TestFlood: 10,000 eligible denials for one path make one pending
// request and one prompt, while checks from another session keep flowing.
// The flood must land within 2 s and the other session's p99 stay under
// 5 ms. Timing is asserted only when PATHGRANT_TIMING=1, which scripts/test
// sets in a step of its own, with nothing else running; even then these
// machines are shared and noisy, so the timing gets up to three attempts.
// The counts are asserted on every attempt, always.
func TestFlood(t *testing.T) {
	var last floodResult
	for attempt := 1; attempt <= 3; attempt++ {
		last = runFlood(t)
		t.Logf("attempt %d: flood of %d took %v; other session: %d checks, p50 %v, p99 %v",
			attempt, floodSize, last.took, last.n, last.p50, last.p99)
		if !timingAsserted() || (last.took < 2*time.Second && last.p99 < 5*time.Millisecond) {
			return
		}
	}
	t.Errorf("flood %v (target < 2s), other-session p99 %v (target < 5ms)", last.took, last.p99)
}

const floodSize, floodClients = 10000, 8

// timingAsserted reports whether latency targets are asserted in this run.
func timingAsserted() bool {
	return os.Getenv("PATHGRANT_TIMING") == "1" && !raceEnabled && !testing.Short()
}

type floodResult struct {
	took     time.Duration
	n        int
	p50, p99 time.Duration
}

func runFlood(t *testing.T) floodResult {
	e := newTestEnv(t)
	fc := e.clientFor(e.register(wire.SessionRequest{Agent: "flood"}))
	oc := e.clientFor(e.register(wire.SessionRequest{Agent: "other"}))
	start := time.Now()
	var wg sync.WaitGroup
	var sent atomic.Int64
	for range floodClients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for sent.Add(1) <= floodSize {
				if ans, err := fc.Check(context.Background(), wire.CheckRequest{Command: "cat ~/Downloads/report.csv"}); err != nil || ans.Pending == "" {
					t.Errorf("flood check: %+v %v", ans, err)
					return
				}
			}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	lat := otherSession(t, oc, done)
	took := time.Since(start)
	p := e.waitPending(1)
	if p[0].Count != floodSize || e.approver.shown.Load() != 1 {
		t.Fatalf("count %d shown %d, want %d and 1", p[0].Count, e.approver.shown.Load(), floodSize)
	}
	slices.Sort(lat)
	return floodResult{took: took, n: len(lat), p50: lat[len(lat)/2], p99: lat[len(lat)*99/100]}
}

// otherSession sends allowed checks one after another until done closes,
// and returns their latencies.
func otherSession(t *testing.T, c *apiclient.Client, done <-chan struct{}) []time.Duration {
	var lat []time.Duration
	for {
		select {
		case <-done:
			return lat
		default:
		}
		t0 := time.Now()
		if ans, err := c.Check(context.Background(), wire.CheckRequest{Command: "cat main.go"}); err != nil || ans.Decision != guard.Allow {
			t.Fatalf("other session: %+v %v", ans, err)
		}
		lat = append(lat, time.Since(t0))
	}
}
