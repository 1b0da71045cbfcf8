package ipc

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"pathgrant/apiclient"
	"pathgrant/engine"
	"pathgrant/wire"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// floodEnv makes this test binary a flooder: it dials the socket named in
// it as many times as asked, holds every connection open and idle, says
// how it went on stdout, and exits when its stdin closes.
const floodEnv = "PATHGRANT_TEST_FLOOD"

func TestMain(m *testing.M) {
	if v := os.Getenv(floodEnv); v != "" {
		os.Exit(flooder(v))
	}
	os.Exit(m.Run())
}

func flooder(spec string) int {
	sock, count, _ := strings.Cut(spec, "|")
	n, _ := strconv.Atoi(count)
	var rl unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_NOFILE, &rl) == nil {
		rl.Cur = rl.Max
		_ = unix.Setrlimit(unix.RLIMIT_NOFILE, &rl)
	}
	conns := make([]net.Conn, 0, n)
	busy := 0
	for len(conns) < n {
		c, err := net.DialTimeout("unix", sock, 2*time.Second)
		if err != nil {
			if !errors.Is(err, syscall.EAGAIN) || busy > 100*n {
				fmt.Printf("dialed %d, then: %v\n", len(conns), err)
				break
			}
			busy++
			time.Sleep(time.Millisecond) // the accept queue is full: try again
			continue
		}
		conns = append(conns, c)
	}
	fmt.Printf("dialed %d (%d times the queue was full)\n", len(conns), busy)
	_, _ = io.Copy(io.Discard, os.Stdin)
	return 0
}

// TestIdleConnFlood: 20,000 idle connections, from two processes of
// 10,000 each. The daemon keeps at most its bound open (the oldest idle
// ones make room), /v1/health answers throughout (p99 under 50 ms,
// asserted with PATHGRANT_TIMING=1), and once the flood is gone the
// daemon's RSS is back within 2x of what it was idle. Unix socket only;
// bounded in count and time.
func TestIdleConnFlood(t *testing.T) {
	if testing.Short() {
		t.Skip("20,000 connections: not in -short")
	}
	const flooders, each = 2, 10000
	e := newTestEnv(t)
	idle := settledRSS(t)
	done := make(chan struct{})
	lat := make(chan []time.Duration, 1)
	go func() { lat <- probeHealth(t, e.sock, done) }()
	procs := make([]*floodProc, flooders)
	for i := range procs {
		procs[i] = startFlooder(t, e.sock, each)
	}
	maxOpen := 0
	stopWatch := make(chan struct{})
	go func() {
		for {
			select {
			case <-stopWatch:
				return
			case <-time.After(5 * time.Millisecond):
				if n := e.srv.conns.open(); n > maxOpen {
					maxOpen = n
				}
			}
		}
	}()
	var dialed []string
	for _, p := range procs {
		dialed = append(dialed, p.held(t))
	}
	time.Sleep(500 * time.Millisecond) // health keeps being probed with the flood held open
	close(done)
	l := <-lat
	close(stopWatch)
	for _, p := range procs {
		p.stop()
	}
	waitFor(t, func() bool { return e.srv.conns.open() <= 2 })
	after := settledRSS(t)
	slices.Sort(l)
	p99 := l[len(l)*99/100]
	t.Logf("%d connections from %d processes (%s); at most %d open in the daemon; health: %d probes, p50 %v, p99 %v, max %v; RSS idle %d KiB, after %d KiB",
		flooders*each, flooders, strings.Join(dialed, ", "), maxOpen, len(l), l[len(l)/2], p99, l[len(l)-1], idle>>10, after>>10)
	if limit := e.srv.Engine().Config().MaxConns + reserveConns; maxOpen > limit {
		t.Errorf("the daemon held %d connections, over its bound %d", maxOpen, limit)
	}
	if after > 2*idle {
		t.Errorf("RSS after the flood %d KiB, over 2x idle (%d KiB)", after>>10, idle>>10)
	}
	if timingAsserted() && p99 > 50*time.Millisecond {
		t.Errorf("health p99 %v under the flood, target < 50ms", p99)
	}
}

// floodProc is a flooder process holding its connections open.
type floodProc struct {
	cmd    *exec.Cmd
	stdin  io.Closer
	stdout *bufio.Reader
}

// startFlooder starts a flooder process that opens n connections to sock
// and holds them until stopped (or the test ends).
func startFlooder(t *testing.T, sock string, n int) *floodProc {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), floodEnv+"="+sock+"|"+strconv.Itoa(n))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	f := &floodProc{cmd: cmd, stdin: stdin, stdout: bufio.NewReader(stdout)}
	t.Cleanup(f.stop)
	return f
}

// held waits until the flooder has all its connections open (or gave up)
// and returns what it said.
func (f *floodProc) held(t *testing.T) string {
	line, err := f.stdout.ReadString('\n')
	if err != nil {
		t.Fatalf("flooder: %v", err)
	}
	return strings.TrimSpace(line)
}

// stop ends the flooder, which closes its connections.
func (f *floodProc) stop() {
	f.stdin.Close()
	_ = f.cmd.Wait()
}

// probeHealth asks /v1/health every 5 ms on a new connection until done,
// and returns the latencies; a failed probe fails the test.
func probeHealth(t *testing.T, sock string, done <-chan struct{}) []time.Duration {
	var out []time.Duration
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-done:
			return out
		case <-tick.C:
		}
		c := apiclient.New(sock)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		start := time.Now()
		err := c.Health(ctx)
		out = append(out, time.Since(start))
		cancel()
		c.CloseIdle()
		if err != nil {
			t.Errorf("health under the flood: %v", err)
			return out
		}
	}
}

// settledRSS is the process's resident set after a GC that returns
// freed memory to the system.
func settledRSS(t *testing.T) int64 {
	t.Helper()
	runtime.GC()
	debug.FreeOSMemory()
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	t.Fatal("no VmRSS in /proc/self/status")
	return 0
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition never held")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestSessionFlood: three times the cap of registrations from 100
// processes. Live sessions stay within the per-user and per-process
// caps; beyond them a registration is 429 with a message saying why, and
// memory stays bounded. A hook-only session beyond its agent's cap ends
// that agent's oldest hook-only session instead.
func TestSessionFlood(t *testing.T) {
	e := newTestEnv(t, func(c *Config) {
		if testing.Short() {
			c.MaxSessions, c.MaxSessionsPerProcess = 200, 16
		}
	})
	n := 3 * e.srv.Engine().Config().MaxSessions
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	created, refused := 0, 0
	for i := range n {
		e.role.Store(&[]engine.LineageEntry{{Proc: engine.Proc{PID: int32(10000 + i%100), Start: 1}, Comm: "launcher"}})
		e.client.CloseIdle()
		_, err := e.client.Register(context.Background(), wire.SessionRequest{Agent: "flood", Cwd: e.work, Workspace: []string{e.work}})
		switch {
		case err == nil:
			created++
		case statusOf(err) == 429 && strings.Contains(err.Error(), "too many live sessions"):
			refused++
		default:
			t.Fatalf("registration %d: %v", i, err)
		}
	}
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	growth := int64(after.HeapInuse) - int64(before.HeapInuse)
	t.Logf("%d registrations: %d created, %d refused (429); heap in use grew %d KiB", n, created, refused, growth>>10)
	if created != e.srv.Engine().Config().MaxSessions || refused != n-created {
		t.Errorf("%d created, %d refused; want %d live at most and the rest refused", created, refused, e.srv.Engine().Config().MaxSessions)
	}
	if growth > 64<<20 {
		t.Errorf("heap grew %d MiB for %d registrations", growth>>20, n)
	}
}

// TestHookOnlyEviction: an agent's hook-only sessions beyond the
// per-process cap end its oldest one, and the newest is admitted; a
// registered session is never ended to make room.
func TestHookOnlyEviction(t *testing.T) {
	e := newTestEnv(t, func(c *Config) { c.MaxSessionsPerProcess, c.MaxSessions = 4, 6 })
	agent := []engine.LineageEntry{{Proc: engine.Proc{PID: 777, Start: 1}, Comm: "pathgrant-hook"}, {Proc: engine.Proc{PID: 778, Start: 1}, Comm: "claude"}}
	check := func(id string) error {
		e.as(agent)
		_, err := e.client.Check(context.Background(), wire.CheckRequest{SessionID: id, Cwd: e.work, Op: "read", Path: e.work + "/main.go"})
		return err
	}
	for i := range 5 {
		if err := check("hook-" + strconv.Itoa(i)); err != nil {
			t.Fatalf("hook session %d: %v", i, err)
		}
	}
	if e.srv.Engine().SessionLive("hook-0") || !e.srv.Engine().SessionLive("hook-4") {
		t.Fatalf("live: hook-0 %v, hook-4 %v; want the oldest ended, the newest live", e.srv.Engine().SessionLive("hook-0"), e.srv.Engine().SessionLive("hook-4"))
	}
	if err := check("hook-0"); statusOf(err) != 410 {
		t.Fatalf("the ended hook-only session: %v, want 410", err)
	}
	e.as(userLineage)
	for i := range 2 {
		e.register(wire.SessionRequest{Agent: "launcher-" + strconv.Itoa(i)})
	}
	e.as([]engine.LineageEntry{{Proc: engine.Proc{PID: 900, Start: 1}, Comm: "launcher"}})
	if _, err := e.client.Register(context.Background(), wire.SessionRequest{Agent: "x", Cwd: e.work, Workspace: []string{e.work}}); err != nil {
		t.Fatalf("a registration over the user cap ends a hook-only session: %v", err)
	}
	if live := e.srv.Engine().LiveSessions(); live != 6 {
		t.Fatalf("%d live sessions, want the cap of 6", live)
	}
}

// TestEndedSessionsDropped: three times maxGone hook-only sessions, each
// registered by its first check and ended by its hooks' session-end
// call. The daemon holds at most maxGone of them once ended, the newest still answer 410
// (ended, not unknown) within the grace period, and after it none is
// held; an ended id is never revived by dropping it, and memory stays
// bounded.
func TestEndedSessionsDropped(t *testing.T) {
	n, keep := 3*engine.DefaultMaxGone, engine.DefaultMaxGone
	if testing.Short() {
		n, keep = 600, 100
	}
	var skew atomic.Int64
	e := newTestEnv(t, func(c *Config) {
		c.Now = func() time.Time { return time.Now().Add(time.Duration(skew.Load())) }
		c.MaxGone = keep
	})
	// The sweeper drops what is past its grace or beyond the bound once a
	// second: wait for it to have had its turn.
	dropped := func(most int) {
		for deadline := time.Now().Add(5 * time.Second); e.srv.Engine().HeldSessions() > most && time.Now().Before(deadline); {
			time.Sleep(50 * time.Millisecond)
		}
	}
	heap := func() int64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return int64(m.HeapInuse)
	}
	before := heap()
	check := func(id string) error {
		_, err := e.client.Check(context.Background(), wire.CheckRequest{SessionID: id, Cwd: e.work, Op: "read", Path: e.work + "/main.go"})
		return err
	}
	ctx := context.Background()
	for i := range n {
		id := "hook-" + strconv.Itoa(i)
		if err := check(id); err != nil {
			t.Fatalf("check %d: %v", i, err)
		}
		if err := e.client.EndSession(ctx, id); err != nil {
			t.Fatalf("end %d: %v", i, err)
		}
	}
	dropped(keep)
	last := "hook-" + strconv.Itoa(n-1)
	if held := e.srv.Engine().HeldSessions(); held > keep || check(last) == nil || statusOf(check(last)) != 410 {
		t.Fatalf("%d ended sessions held (at most %d), the newest: %v (want 410)", held, keep, check(last))
	}
	grown := heap() - before
	skew.Store(int64(engine.GoneGrace + time.Minute))
	dropped(2)
	t.Logf("%d sessions registered and ended: %d held after the grace period; heap grew %d KiB while %d were held",
		n, e.srv.Engine().HeldSessions(), grown>>10, keep)
	for _, id := range []string{last, "hook-0"} {
		if err := check(id); statusOf(err) != 410 || e.srv.Engine().SessionLive(id) {
			t.Errorf("an ended session dropped from memory, then named again: %v, live %v; want 410, never revived", err, e.srv.Engine().SessionLive(id))
		}
	}
	if held := e.srv.Engine().HeldSessions(); held > 2 {
		t.Errorf("%d sessions held after the grace period", held)
	}
	if grown > 32<<20 {
		t.Errorf("heap grew %d MiB for %d ended sessions", grown>>20, n)
	}
}
