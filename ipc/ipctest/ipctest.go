// Package ipctest runs a real pathgrant daemon for tests in other
// packages: a real store, a real socket, shut down when the test ends.
package ipctest

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"pathgrant/grants"
	"pathgrant/ipc"
)

// Quiet is a logger that discards everything.
var Quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// OpenStore opens a store at path with a fixed machine identity and no
// watcher, closed when the test ends.
func OpenStore(t testing.TB, path string) *grants.Store {
	t.Helper()
	st, err := grants.Open(path, grants.Options{MachineID: "test-machine", NoWatch: true, Logger: Quiet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// Serve runs srv on a socket at sock until the test ends, then shuts it
// down and reports a shutdown or serve error as a test error.
func Serve(t testing.TB, srv *ipc.Server, sock string) {
	t.Helper()
	ln, err := ipc.Listen(sock)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
}
