package cli

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"pathgrant/apiclient"
	"pathgrant/grants"
	"pathgrant/guard"
	"pathgrant/wire"
)

func TestServeUsage(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"argument", []string{"--headless", "now"}, 2, "", "unexpected argument"},
		{"unknown flag", []string{"--display", ":0"}, 2, "", "flag provided but not defined"},
		{"help", []string{"--help"}, 0, "usage: pathgrant serve [--headless]", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := run(func(a []string, o, e *bytes.Buffer) int { return runServe(a, o, e) }, tc.args...)
			if r.code != tc.code || !strings.Contains(r.stdout, tc.stdout) || !strings.Contains(r.stderr, tc.stderr) {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d, %q, %q", r.code, r.stdout, r.stderr, tc.code, tc.stdout, tc.stderr)
			}
			if strings.Count(r.stderr, "\n") > 1 {
				t.Errorf("stderr is more than one line: %q", r.stderr)
			}
		})
	}
}

// TestHeadlessApprover: the log line lists each choice's code next to
// the choice, and the command it hands the person carries no code.
func TestHeadlessApprover(t *testing.T) {
	codes := []wire.ChoiceCode{
		{Choice: wire.Choice{Scope: "once", Kind: guard.KindFile}, Code: "K7MP3QXA"},
		{Choice: wire.Choice{Scope: "session", Kind: guard.KindFolder, For: "1h"}, Code: "BCDE2345"},
		{Choice: wire.Choice{Scope: "device", Kind: guard.KindFile}, Code: "WXYZ6789"},
	}
	tests := []struct {
		name      string
		socketArg string
		want      []string
	}{
		{"default socket", "", []string{"id=r1 ", "session=s1", "op=read", "path=/d/x.csv",
			`approve="pathgrant approve r1 --scope once"`, `codes="once=K7MP3QXA session+folder+1h=BCDE2345 device=WXYZ6789"`,
			`deny="pathgrant deny r1"`}},
		{"other socket", " --socket /x.sock", []string{`approve="pathgrant approve r1 --scope once --socket /x.sock"`,
			"pathgrant deny r1 --socket /x.sock"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			a := headlessApprover{log: slog.New(slog.NewTextHandler(&buf, nil)), socketArg: tc.socketArg}
			a.Show(wire.Request{ID: "r1", Session: "s1", Op: guard.OpRead, Path: "/d/x.csv"}, codes)
			lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
			if len(lines) != 1 {
				t.Fatalf("Show logged %d lines, want 1: %q", len(lines), buf.String())
			}
			for _, w := range tc.want {
				if !strings.Contains(lines[0], w) {
					t.Errorf("log line %q lacks %q", lines[0], w)
				}
			}
			// the command in the line is complete, and carries no code
			_, cmd, _ := strings.Cut(lines[0], `approve="pathgrant approve `)
			cmd, _, _ = strings.Cut(cmd, `"`)
			if a, err := parseApproveArgs(strings.Fields(cmd)); err != nil || a.id != "r1" || a.scope != "once" {
				t.Errorf("the logged command %q does not parse: %+v %v", cmd, a, err)
			}
			for _, c := range codes {
				if strings.Contains(cmd, c.Code) || strings.Contains(cmd, "code") {
					t.Errorf("the logged command %q carries a code", cmd)
				}
			}
		})
	}
}

// TestServeHeadless runs the real binary: it serves until SIGTERM, a second
// daemon on its socket or store exits 1 saying it is already running, and
// after the stop the store is intact and the socket gone.
func TestServeHeadless(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := buildBinary(t)
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	sock, store := root+"/run/pathgrant.sock", root+"/state/pathgrant.db"
	// A well-formed locale: the UI toolkit linked into the binary warns on
	// stderr about "C" at start-up, which is not what this test is about.
	env := append(os.Environ(), "HOME="+root+"/home", "XDG_CONFIG_HOME=", "LANG=en_US.UTF-8", "LC_ALL=")
	daemon := exec.Command(bin, "serve", "--headless", "--socket", sock, "--store", store)
	daemon.Env = env
	logFile := createFile(t, root+"/daemon.log")
	daemon.Stderr = logFile
	if err := daemon.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- daemon.Wait() }()
	t.Cleanup(func() {
		if daemon.ProcessState == nil {
			_ = daemon.Process.Kill()
			<-exited
		}
	})
	waitHealthy(t, sock, exited, logFile.Name())

	t.Run("second instance", func(t *testing.T) { testSecondInstance(t, bin, env, root, sock, store) })
	if out, err := exec.Command(bin, "pending", "--json", "--socket", sock).Output(); err != nil || string(out) != "[]\n" {
		t.Errorf("pending against the daemon: %q, %v", out, err)
	}

	if err := daemon.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("after SIGTERM: %v; log:\n%s", err, readFile(t, logFile.Name()))
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the daemon did not stop within 10s of SIGTERM")
	}
	if _, err := os.Stat(sock); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket after stop: %v, want it removed", err)
	}
	s, err := grants.Open(store, grants.Options{NoWatch: true, NoCreate: true})
	if err != nil {
		t.Fatalf("store after stop: %v", err)
	}
	s.Close()
	if log := readFile(t, logFile.Name()); !strings.Contains(log, "daemon ready") || !strings.Contains(log, "msg=stopped") {
		t.Errorf("daemon log:\n%s", log)
	}
}

func testSecondInstance(t *testing.T, bin string, env []string, root, sock, store string) {
	tests := []struct {
		name, sock, store string
		stderr            string
	}{
		{"same socket and store", sock, store, "already running: a daemon answers on " + sock},
		{"same socket, other store", sock, root + "/other/pathgrant.db", "already running: a daemon answers on " + sock},
		{"other socket, same store", root + "/run2/pathgrant.sock", store, "already running: another pathgrant process holds the store"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(bin, "serve", "--headless", "--socket", tc.sock, "--store", tc.store)
			cmd.Env = env
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 1 {
				t.Errorf("second daemon: %v, want exit 1", err)
			}
			if !strings.Contains(stderr.String(), tc.stderr) || strings.Count(stderr.String(), "\n") != 1 {
				t.Errorf("stderr %q, want one line with %q", stderr.String(), tc.stderr)
			}
			if tc.store != store {
				if _, err := os.Stat(tc.store); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("the failed daemon created the store %s: %v", tc.store, err)
				}
			}
			if tc.sock != sock {
				if _, err := os.Stat(tc.sock); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("the failed daemon left its socket %s: %v", tc.sock, err)
				}
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			if err := apiclient.New(sock).Health(ctx); err != nil {
				t.Errorf("the first daemon stopped answering: %v", err)
			}
		})
	}
}

// waitHealthy waits until the daemon answers on sock, failing early if
// it exits.
func waitHealthy(t *testing.T, sock string, exited <-chan error, logName string) {
	t.Helper()
	c := apiclient.New(sock)
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-exited:
			t.Fatalf("the daemon exited: %v; log:\n%s", err, readFile(t, logName))
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		err := c.Health(ctx)
		cancel()
		if err == nil {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("the daemon never answered on %s; log:\n%s", sock, readFile(t, logName))
}

func createFile(t *testing.T, name string) *os.File {
	t.Helper()
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
