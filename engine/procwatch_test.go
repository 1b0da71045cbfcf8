package engine

import (
	"context"
	"os/exec"
	"testing"
	"time"
)

// startSleeper runs a real process that lives until the test kills it,
// and returns it with its identity.
func startSleeper(t *testing.T) (*exec.Cmd, Proc) {
	t.Helper()
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	_, p, _, err := ProcInfo(int32(cmd.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	return cmd, p
}

// waiters are the two ways a process is watched: the kernel's wake-up (a
// pidfd on Linux, kqueue on macOS), and the poll the daemon falls back to
// without one.
var waiters = []struct {
	name string
	wait func(ctx context.Context, p Proc) bool
}{
	{"kernel", func(ctx context.Context, p Proc) bool {
		exited, err := waitKernel(ctx, p)
		if err != nil {
			panic(err) // every kernel this runs on has pidfd_open or kqueue
		}
		return exited
	}},
	{"poll", func(ctx context.Context, p Proc) bool { return pollProc(ctx, p, kernelProcs{}.alive) }},
}

// TestWaitSeesExit: a watched process that is killed is seen to exit
// within a second (the kernel at once, the poll within one period), and
// not before.
func TestWaitSeesExit(t *testing.T) {
	for _, w := range waiters {
		t.Run(w.name, func(t *testing.T) {
			cmd, p := startSleeper(t)
			done := make(chan bool, 1)
			go func() { done <- w.wait(context.Background(), p) }()
			select {
			case <-done:
				t.Fatal("wait returned while the process still runs")
			case <-time.After(200 * time.Millisecond):
			}
			if !(kernelProcs{}).alive(p) {
				t.Fatal("alive = false for a running process")
			}
			killed := time.Now()
			_ = cmd.Process.Kill()
			select {
			case exited := <-done:
				if !exited {
					t.Fatal("wait = false, want true (exited)")
				}
				if d := time.Since(killed); d > time.Second {
					t.Errorf("exit seen after %v", d)
				}
			case <-time.After(3 * time.Second):
				t.Fatal("exit not seen within 3 s")
			}
			if (kernelProcs{}).alive(p) {
				t.Error("alive = true for a killed process")
			}
		})
	}
}

// TestWaitIdentity: a pid whose start time differs is another process
// (the one watched has exited); a pid nobody holds has exited too.
func TestWaitIdentity(t *testing.T) {
	_, p := startSleeper(t)
	cases := []struct {
		name string
		p    Proc
	}{
		{"reused pid", Proc{PID: p.PID, Start: p.Start + 1}},
		{"no such pid", Proc{PID: 1 << 30, Start: 1}},
	}
	for _, w := range waiters {
		for _, tc := range cases {
			t.Run(w.name+"/"+tc.name, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
				defer cancel()
				if !w.wait(ctx, tc.p) {
					t.Fatal("wait = false, want true (exited)")
				}
			})
		}
	}
}

// TestWaitCancel: ending the context stops the watch without calling the
// process exited.
func TestWaitCancel(t *testing.T) {
	for _, w := range waiters {
		t.Run(w.name, func(t *testing.T) {
			_, p := startSleeper(t)
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan bool, 1)
			go func() { done <- w.wait(ctx, p) }()
			time.Sleep(50 * time.Millisecond)
			cancel()
			select {
			case exited := <-done:
				if exited {
					t.Fatal("wait = true after cancel, want false")
				}
			case <-time.After(2 * time.Second):
				t.Fatal("wait did not return after cancel")
			}
		})
	}
}
