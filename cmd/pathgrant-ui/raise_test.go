package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"pathgrant/wire"
)

// fakeDaemon answers the raise route on a Unix socket as the app (200)
// or a headless daemon (404) does, and records the views asked for.
type fakeDaemon struct {
	mu      sync.Mutex
	views   []string
	status  int
	pending []wire.Request
}

func (f *fakeDaemon) serve(t *testing.T) string {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "pathgrant.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+wire.PathRaise, func(w http.ResponseWriter, r *http.Request) {
		var req wire.Raise
		_ = json.NewDecoder(r.Body).Decode(&req)
		f.mu.Lock()
		f.views = append(f.views, req.View)
		status := f.status
		f.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		if status != http.StatusOK {
			_ = json.NewEncoder(w).Encode(wire.Error{Error: "this daemon has no app window (it runs headless)"})
			return
		}
		_, _ = w.Write([]byte("{}"))
	})
	mux.HandleFunc("GET "+wire.PathRequests, func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		defer f.mu.Unlock()
		_ = json.NewEncoder(w).Encode(wire.RequestPage{Requests: f.pending})
	})
	srv := &http.Server{Handler: mux}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	return sock
}

func (f *fakeDaemon) asked() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.views...)
}

// TestSettingsRaisesTheApp: `pathgrant settings` with the app running
// raises its settings window, and its inbox when requests wait, and
// exits at once without a window of its own.
func TestSettingsRaisesTheApp(t *testing.T) {
	tests := []struct {
		name    string
		pending []wire.Request
		views   string
		line    string
	}{
		{"nothing waiting", nil, wire.ViewSettings, "shows its settings window\n"},
		{"two waiting", []wire.Request{{ID: "a"}, {ID: "b"}}, wire.ViewSettings + "," + wire.ViewInbox,
			"shows its settings window and the 2 requests waiting\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeDaemon{status: http.StatusOK, pending: tc.pending}
			sock := f.serve(t)
			var out bytes.Buffer
			if err := showSettings(sock, nil, &out); err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(f.asked(), ","); got != tc.views {
				t.Errorf("views %q, want %q", got, tc.views)
			}
			if !strings.HasSuffix(out.String(), tc.line) || strings.Count(out.String(), "\n") != 1 {
				t.Errorf("output %q, want one line ending %q", out.String(), tc.line)
			}
		})
	}
}

func TestSettingsWithNoDaemon(t *testing.T) {
	var out bytes.Buffer
	err := showSettings(filepath.Join(t.TempDir(), "none.sock"), nil, &out)
	var ue *wire.UnreachableError
	if !errors.As(err, &ue) || out.Len() != 0 {
		t.Fatalf("err %v output %q, want unreachable and silence", err, out.String())
	}
}
