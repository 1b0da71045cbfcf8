package cli

import (
	"bytes"
	"encoding/json"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"pathgrant/wire"
)

// fakeRaise answers the raise route as a daemon does: 200 (its app is
// shown), or 404 with why it has no window.
func fakeRaise(t *testing.T, status int, msg string) string {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "pathgrant.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+wire.PathRaise, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		if status != http.StatusOK {
			_ = json.NewEncoder(w).Encode(wire.Error{Error: msg})
			return
		}
		_, _ = w.Write([]byte("{}"))
	})
	srv := &http.Server{Handler: mux}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	return sock
}

// TestAppAsksTheDaemon: `pathgrant app` with a daemon running asks it to
// show its app and is done in one line; a daemon with no window says why
// and what to do, never taking a display from this process.
func TestAppAsksTheDaemon(t *testing.T) {
	t.Setenv("DISPLAY", ":0")
	tests := []struct {
		name   string
		status int
		msg    string
		code   int
		out    string
		errOut string
	}{
		{"shown", http.StatusOK, "", 0, "already running on", ""},
		{"headless", http.StatusNotFound, "this daemon has no app window (it runs headless)", 1, "", "without --headless"},
		{"no display", http.StatusNotFound, "this daemon has no app window: no display for it (DISPLAY is not set)", 1, "",
			"systemctl --user import-environment DISPLAY"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sock := fakeRaise(t, tc.status, tc.msg)
			var stdout, stderr bytes.Buffer
			code := runApp([]string{"--socket", sock}, &stdout, &stderr)
			if code != tc.code || !strings.Contains(stdout.String(), tc.out) || !strings.Contains(stderr.String(), tc.errOut) ||
				strings.Count(stdout.String()+stderr.String(), "\n") != 1 {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d, %q, %q in one line", code, stdout.String(), stderr.String(),
					tc.code, tc.out, tc.errOut)
			}
		})
	}
}
