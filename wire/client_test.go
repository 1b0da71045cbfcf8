package wire

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// serve answers on a Unix socket with h through net/http, as the daemon
// does, and counts the connections it accepted.
func serve(t *testing.T, h http.HandlerFunc) (string, *atomic.Int32) {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "d.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	var conns atomic.Int32
	srv := &http.Server{Handler: h, IdleTimeout: 100 * time.Millisecond, ConnState: func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return sock, &conns
}

// TestClientDo: headers and body arrive, answers decode (blocking or on
// the poller), refusals are
// DaemonErrors with the daemon's message and kind, and a client that
// keeps connections reuses one while a one-shot client does not.
func TestClientDo(t *testing.T) {
	sock, conns := serve(t, func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.Header.Get(HeaderToken) != "tok" || r.Header.Get(HeaderCapability) != "cap" {
			w.WriteHeader(http.StatusForbidden)
			io.WriteString(w, `{"error":"no token","kind":"forged"}`)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"decision":"allow","session":"s","reason":`+string(body)+`}`)
	})
	ctx := context.Background()
	cap := Header{Name: HeaderCapability, Value: "cap"}
	for _, tt := range []struct {
		keep      int
		poll      bool
		wantConns int32
	}{{0, false, 3}, {2, false, 1}, {0, true, 3}, {2, true, 1}} {
		conns.Store(0)
		c := Client{Socket: sock, Token: "tok", Keep: tt.keep, Poll: tt.poll}
		for range 3 {
			var ans Answer
			if err := c.Do(ctx, "POST", PathCheck, "hello", &ans, cap); err != nil || !ans.Allowed() || ans.Reason != "hello" {
				t.Fatalf("keep %d: Do = %+v, %v", tt.keep, ans, err)
			}
		}
		c.CloseIdle()
		if got := conns.Load(); got != tt.wantConns {
			t.Errorf("keep %d: %d connections for 3 calls; want %d", tt.keep, got, tt.wantConns)
		}
	}
	c := Client{Socket: sock}
	err := c.Do(ctx, "POST", PathCheck, "x", nil)
	var de *DaemonError
	if !errors.As(err, &de) || de.Status != http.StatusForbidden || de.Msg != "no token" || de.Kind != "forged" {
		t.Errorf("refusal = %v; want the daemon's 403, message and kind", err)
	}
}

// TestClientRetriesClosedKept: a kept connection the daemon closed while
// idle (its idle timeout) is replaced once, and the call succeeds.
func TestClientRetriesClosedKept(t *testing.T) {
	sock, conns := serve(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, `{}`) })
	c := Client{Socket: sock, Keep: 1}
	ctx := context.Background()
	for i := range 2 {
		if err := c.Do(ctx, "GET", PathHealth, nil, nil); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		if i == 0 {
			time.Sleep(300 * time.Millisecond) // past the daemon's idle timeout
		}
	}
	if got := conns.Load(); got != 2 {
		t.Errorf("%d connections; want 2 (the first, and its replacement once the daemon closed it)", got)
	}
}

// TestClientContext: canceling the context ends a call that waits for an
// answer at once, and a deadline ends it as DeadlineExceeded.
func TestClientContext(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	sock, _ := serve(t, func(w http.ResponseWriter, r *http.Request) { <-release })
	for _, poll := range []bool{false, true} {
		c := Client{Socket: sock, Poll: poll}
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(100*time.Millisecond, cancel)
		start := time.Now()
		if err := c.Do(ctx, "GET", PathHealth, nil, nil); !errors.Is(err, context.Canceled) || time.Since(start) > 5*time.Second {
			t.Errorf("poll %v: canceled call = %v after %v; want context.Canceled at once", poll, err, time.Since(start))
		}
		ctx, cancel = context.WithTimeout(context.Background(), 200*time.Millisecond)
		err := c.Do(ctx, "GET", PathHealth, nil, nil)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), sock) {
			t.Errorf("poll %v: call past its deadline = %v; want DeadlineExceeded naming the socket", poll, err)
		}
	}
}

// TestClientNeverResends: a request the daemon read and then dropped
// without answering (a crash, a panic) is an error, never sent again,
// since the daemon may have acted on it; a header value with a line
// break is refused before anything is sent.
func TestClientNeverResends(t *testing.T) {
	var calls atomic.Int32
	sock, _ := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == PathTools+"/drop" {
			calls.Add(1)
			conn, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				conn.Close()
			}
			return
		}
		io.WriteString(w, `{}`)
	})
	c := Client{Socket: sock, Keep: 1}
	ctx := context.Background()
	if err := c.Do(ctx, "GET", PathHealth, nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Do(ctx, "POST", PathTools+"/drop", "x", nil); err == nil || calls.Load() != 1 {
		t.Errorf("dropped call: %v, daemon saw it %d times; want an error and exactly one", err, calls.Load())
	}
	bad := Client{Socket: sock, Token: "t\r\nX-Session-ID: other"}
	if err := bad.Do(ctx, "GET", PathHealth, nil, nil); err == nil || !strings.Contains(err.Error(), "line break") {
		t.Errorf("a token with a line break: %v; want it refused", err)
	}
}
