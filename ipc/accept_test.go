package ipc

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"syscall"
	"testing"
	"time"
)

// TestAdmitListener: admitted connections carry their peer's kernel
// credentials; one over the bounds with every slot busy is closed before
// the server sees it; closing the listener closes what the server has
// not taken yet, and Accept then says the listener is closed.
func TestAdmitListener(t *testing.T) {
	ln, err := Listen(t.TempDir() + "/run/s.sock")
	if err != nil {
		t.Fatal(err)
	}
	lim := newConnLimiter(1, 1)
	lim.reserve = 0
	al := newAdmitListener(ln, lim, slog.New(slog.NewTextHandler(io.Discard, nil)))
	dial := func() net.Conn {
		c, err := net.Dial("unix", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	dial()
	first, err := al.Accept()
	if err != nil {
		t.Fatal(err)
	}
	if p, ok := withPeer(t.Context(), first).Value(peerKey{}).(*connInfo); !ok || p.peer.PID != int32(os.Getpid()) || !p.peer.sameUser() {
		t.Fatalf("admitted connection's peer: %+v, want this process", p)
	}
	lim.state(first, http.StateActive)
	refused := dial()
	refused.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := refused.Read(make([]byte, 1)); !errors.Is(err, io.EOF) && !errors.Is(err, syscall.ECONNRESET) {
		t.Fatalf("connection over the bound: read %v, want it closed", err)
	}
	lim.state(first, http.StateClosed)
	waiting := dial()
	waitFor(t, func() bool { return lim.open() == 1 })
	al.Close()
	waiting.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := waiting.Read(make([]byte, 1)); !errors.Is(err, io.EOF) && !errors.Is(err, syscall.ECONNRESET) {
		t.Fatalf("admitted connection after Close: read %v, want it closed", err)
	}
	if _, err := al.Accept(); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("Accept after Close: %v", err)
	}
	waitFor(t, func() bool { return lim.open() == 0 })
}

// TestAcceptPause: running out of descriptors or memory is waited out,
// doubling from 5 ms to at most 1 s; a closed listener or any other
// failure ends accepting.
func TestAcceptPause(t *testing.T) {
	for _, tc := range []struct {
		err  error
		last time.Duration
		want time.Duration
	}{
		{&net.OpError{Op: "accept", Err: os.NewSyscallError("accept4", syscall.EMFILE)}, 0, 5 * time.Millisecond},
		{&net.OpError{Op: "accept", Err: os.NewSyscallError("accept4", syscall.ENFILE)}, 40 * time.Millisecond, 80 * time.Millisecond},
		{syscall.ENOBUFS, 800 * time.Millisecond, time.Second},
		{net.ErrClosed, 0, 0},
		{fs.ErrPermission, 0, 0},
	} {
		t.Run(fmt.Sprint(tc.err), func(t *testing.T) {
			if got := acceptPause(tc.err, tc.last); got != tc.want {
				t.Fatalf("pause %v, want %v", got, tc.want)
			}
		})
	}
}
