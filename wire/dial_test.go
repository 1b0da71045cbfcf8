package wire

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestDialUnix: a dial waits for a daemon whose accept queue is full and
// tries again while the socket refuses connections (a daemon restarting),
// for up to busyWait or the deadline; a socket that is not there fails at
// once.
func TestDialUnix(t *testing.T) {
	timedOut := func(err error) bool { return errors.Is(err, context.DeadlineExceeded) }
	for _, tc := range []struct {
		name     string
		setup    func(t *testing.T, sock string) // prepares sock; may make it answer later
		deadline time.Duration
		want     func(error) bool
		took     [2]time.Duration // how long the dial may take, at least and at most
	}{
		{"no socket", func(*testing.T, string) {}, time.Minute, isUnreachable(syscall.ENOENT), [2]time.Duration{0, busyWait / 2}},
		{"refused, then listening", func(t *testing.T, sock string) {
			deadSocket(t, sock)
			ready := make(chan struct{})
			time.AfterFunc(100*time.Millisecond, func() { defer close(ready); os.Remove(sock); listen(t, sock, 8) })
			t.Cleanup(func() { <-ready })
		}, time.Minute, succeeded, [2]time.Duration{100 * time.Millisecond, busyWait}},
		{"refused until the deadline", deadSocket, 300 * time.Millisecond, isUnreachable(syscall.ECONNREFUSED),
			[2]time.Duration{200 * time.Millisecond, busyWait}},
		{"refused past busyWait", deadSocket, time.Minute, isUnreachable(syscall.ECONNREFUSED),
			[2]time.Duration{busyWait - 100*time.Millisecond, busyWait + time.Second}},
		{"queue full, then accepted", func(t *testing.T, sock string) {
			ln := fullQueue(t, sock)
			time.AfterFunc(100*time.Millisecond, func() { acceptQueued(ln) })
		}, time.Minute, succeeded, [2]time.Duration{100 * time.Millisecond, busyWait}},
		{"queue full until the deadline", func(t *testing.T, sock string) { fullQueue(t, sock) }, 300 * time.Millisecond,
			timedOut, [2]time.Duration{200 * time.Millisecond, busyWait}},
		{"queue full past busyWait", func(t *testing.T, sock string) { fullQueue(t, sock) }, time.Minute,
			timedOut, [2]time.Duration{busyWait - 100*time.Millisecond, busyWait + time.Second}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sock := filepath.Join(t.TempDir(), "s.sock")
			tc.setup(t, sock)
			start := time.Now()
			f, err := dial(context.Background(), sock, start.Add(tc.deadline), false)
			took := time.Since(start)
			if f != nil {
				f.Close()
			}
			if !tc.want(err) || took < tc.took[0] || took > tc.took[1] {
				t.Fatalf("dial: %v after %v; want it within %v", err, took, tc.took)
			}
		})
	}
}

func succeeded(err error) bool { return err == nil }

func isUnreachable(errno syscall.Errno) func(error) bool {
	return func(err error) bool {
		var ue *UnreachableError
		return errors.As(err, &ue) && errors.Is(err, errno)
	}
}

// deadSocket leaves a socket file at sock that nobody listens on, as a
// daemon that stopped without removing it does: connects are refused.
func deadSocket(t *testing.T, sock string) {
	t.Helper()
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close()
}

// listen listens on sock with the given backlog, without accepting,
// until the test ends.
func listen(t *testing.T, sock string, backlog int) *net.UnixListener {
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Error(err)
		return nil
	}
	ul := ln.(*net.UnixListener)
	t.Cleanup(func() { ul.Close() })
	raw, err := ul.SyscallConn()
	if err == nil {
		err = raw.Control(func(fd uintptr) { err = syscall.Listen(int(fd), backlog) })
	}
	if err != nil {
		t.Error(err)
	}
	return ul
}

// fullQueue listens on sock with a backlog of one and fills it, so that
// the next connect finds no room until something is accepted.
func fullQueue(t *testing.T, sock string) *net.UnixListener {
	t.Helper()
	ln := listen(t, sock, 1)
	for i := 0; ; i++ {
		c, err := net.Dial("unix", sock)
		if errors.Is(err, syscall.EAGAIN) {
			return ln
		}
		if err != nil || i > 100 {
			t.Fatalf("filling the accept queue: %v after %d", err, i)
		}
		t.Cleanup(func() { c.Close() })
	}
}

// acceptQueued takes the queued connections off ln's queue and closes
// them, making room.
func acceptQueued(ln *net.UnixListener) {
	ln.SetDeadline(time.Now().Add(50 * time.Millisecond))
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		c.Close()
	}
}
