package frontend

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"pathgrant/sandbox/launch"
	"pathgrant/wire"
	"slices"
	"strings"
	"testing"
)

func TestLookPath(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tool := write("tool", 0o755)
	write("plain", 0o644)
	if err := os.Mkdir(filepath.Join(dir, "adir"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, cmd, path, want string
	}{
		{"found on PATH", "tool", "/nonexistent:" + dir, tool},
		{"a slash: as it is", tool, "", tool},
		{"a relative one: made absolute", "./tool", "", tool},
		{"not executable", "plain", dir, ""},
		{"a folder", "adir", dir, ""},
		{"a relative PATH entry is skipped", "tool", ".", ""},
		{"missing", "nothere", dir, ""},
	}
	t.Chdir(dir)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := LookPath(tt.cmd, tt.path)
			if got != tt.want || (err != nil) != (tt.want == "") {
				t.Errorf("LookPath(%q, %q) = %q, %v; want %q", tt.cmd, tt.path, got, err, tt.want)
			}
		})
	}
}

// TestMainUsage: without a command or a capability the front end runs
// nothing and says why on one line.
func TestMainUsage(t *testing.T) {
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{"no command", []string{"--"}, map[string]string{"PATHGRANT_CAP": "c"}, "usage:"},
		{"a flag", []string{"--socket", "/s", "true"}, map[string]string{"PATHGRANT_CAP": "c"}, "usage:"},
		{"no capability", []string{"--", "true"}, nil, "no capability"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stderr bytes.Buffer
			code := Main(tt.args, func(k string) string { return tt.env[k] }, &stderr)
			if code != 2 || !strings.Contains(stderr.String(), tt.want) || strings.Count(stderr.String(), "\n") != 1 {
				t.Errorf("exit %d, stderr %q; want 2 and one line with %q", code, stderr.String(), tt.want)
			}
		})
	}
}

// TestFetchNoDaemon: a socket nobody answers on is an error naming it.
func TestFetchNoDaemon(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "none.sock")
	_, err := Fetch(sock, "cap", wire.ExecRequest{Argv: []string{"true"}})
	if err == nil || !strings.Contains(err.Error(), sock) {
		t.Errorf("Fetch = %v; want an error naming %s", err, sock)
	}
	var de *wire.DaemonError
	if errors.As(err, &de) {
		t.Errorf("no daemon is not a daemon's refusal: %v", err)
	}
}

// serve answers on a Unix socket with handler, as the daemon's HTTP
// server does.
func serve(t *testing.T, handler http.HandlerFunc) string {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "d.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: handler}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return sock
}

// TestFetch: the request carries the capability and the command's hash;
// a large answer arrives whole, and a
// refusal is a wire.DaemonError with the daemon's message.
func TestFetch(t *testing.T) {
	argv := []string{"bash", "-c", "make test"}
	job := `{"rules":[` + strings.Repeat(`{"path":"/usr","access":1},`, 20000) + `{"path":"/etc","access":1}]}`
	sock := serve(t, func(w http.ResponseWriter, r *http.Request) {
		var req wire.ExecRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || !slices.Equal(req.Argv, argv) {
			http.Error(w, `{"error":"bad request body"}`, http.StatusBadRequest)
			return
		}
		switch r.Header.Get(wire.HeaderCapability) {
		case "good":
			if r.URL.Path != wire.PathExec || r.Header.Get(wire.HeaderCommandHash) != launch.CommandHash("make test") {
				http.Error(w, `{"error":"wrong route or hash"}`, http.StatusBadRequest)
				return
			}
			json.NewEncoder(w).Encode(wire.Prepared{Session: "s1", Job: json.RawMessage(job)})
		default:
			w.WriteHeader(http.StatusForbidden)
			io.WriteString(w, `{"error":"unknown or spent exec capability","kind":"forged"}`)
		}
	})
	p, err := Fetch(sock, "good", wire.ExecRequest{Argv: argv})
	if err != nil || p.Session != "s1" || string(p.Job) != job {
		t.Fatalf("Fetch = session %q, job of %d bytes, %v; want s1 and the %d-byte job", p.Session, len(p.Job), err, len(job))
	}
	_, err = Fetch(sock, "spent", wire.ExecRequest{Argv: argv})
	var de *wire.DaemonError
	if !errors.As(err, &de) || de.Status != http.StatusForbidden || de.Msg != "unknown or spent exec capability" {
		t.Errorf("Fetch with a spent capability = %v; want the daemon's 403 and message", err)
	}
}
