package tools_test

import (
	"context"
	"io"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"pathgrant/guard"
	"pathgrant/sandbox/frontend"
	"pathgrant/tools"
	"pathgrant/wire"
)

// frontEndConfiner runs commands through the one front end
// (frontend.Run) prepared to run unconfined: what package tools does
// with a Confiner (output bounds, timeouts, exit statuses) is tested
// here; the confinement itself is the daemon's door and is tested there
// (cli's door walk).
type frontEndConfiner struct{ tmp string }

func (f frontEndConfiner) Run(ctx context.Context, c tools.Command) (int, error) {
	env := append(slices.Clone(c.Env), "TMPDIR="+f.tmp)
	res := frontend.Run(ctx, frontend.Child{Prepared: wire.Prepared{Unconfined: "test"}, Path: "/bin/bash",
		Argv: []string{"bash", "-c", c.Text}, Env: env, Dir: c.Dir, Stdout: c.Stdout, Stderr: &skipFirst{w: c.Stderr}, OwnGroup: true})
	if res.Err != nil {
		return -1, res.Err
	}
	if res.Status.Signaled() {
		return -1, nil
	}
	return res.Status.ExitStatus(), nil
}

// skipFirst drops the first write: the front end's line saying the
// command runs unconfined.
type skipFirst struct {
	w       io.Writer
	skipped bool
}

func (s *skipFirst) Write(p []byte) (int, error) {
	if !s.skipped {
		s.skipped = true
		return len(p), nil
	}
	return s.w.Write(p)
}

// shellTree is a tree whose session runs commands through the front end.
func shellTree(t *testing.T) (*tree, string) {
	t.Helper()
	tr := newTree(t)
	tmp := t.TempDir()
	tr.sess.Confiner = frontEndConfiner{tmp: tmp}
	return tr, tmp
}

func TestShellTool(t *testing.T) {
	tr, _ := shellTree(t)
	writeFile(t, tr.work+"/leak.sh", "#!/bin/sh\ncat "+tr.secret+"\n")
	if err := os.Chmod(tr.work+"/leak.sh", 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		args    map[string]any
		allow   bool
		code    int
		stdout  string // the output starts with it
		inErr   string // stderr holds it
		timeout bool
	}{
		{"runs in the workspace", map[string]any{"command": "pwd && cat main.go | head -1"}, true, 0, tr.work + "\npackage main\n", "", false},
		{"runs in a cwd", map[string]any{"command": "pwd", "cwd": tr.work + "/sub"}, true, 0, tr.work + "/sub\n", "", false},
		{"session environment", map[string]any{"command": "echo $GREETING $PATHGRANT_TOKEN"}, true, 0, "hello\n", "", false},
		{"guard denies a visible secret read", map[string]any{"command": "cat ~/.ssh/id_ed25519"}, false, 0, "", "", false},
		{"exit status", map[string]any{"command": "exit 3"}, true, 3, "", "", false},
		{"timeout", map[string]any{"command": "sleep 5", "timeout_ms": 200}, true, -1, "", "", true},
	}
	writeFile(t, tr.work+"/sub/.keep", "")
	writeFile(t, tr.work+"/w.sh", "#!/bin/sh\necho pwned > "+tr.outside+"\n")
	if err := os.Chmod(tr.work+"/w.sh", 0o755); err != nil {
		t.Fatal(err)
	}
	tr.sess.Env = map[string]string{"GREETING": "hello", "PATHGRANT_TOKEN": "must-not-pass"}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			res := tr.run(t, tools.ExecuteShellCommand, tt.args)
			if (res.Decision == guard.Allow) != tt.allow {
				t.Fatalf("%+v; want allow=%v", res, tt.allow)
			}
			if !tt.allow {
				if res.Stdout != nil || res.ExitCode != nil {
					t.Errorf("a denied command ran: %+v", res)
				}
				return
			}
			if res.ExitCode == nil || *res.ExitCode != tt.code || res.TimedOut != tt.timeout {
				t.Fatalf("exit %v timed out %v (%s), stderr %q; want %d %v", res.ExitCode, res.TimedOut, res.Error, deref(res.Stderr), tt.code, tt.timeout)
			}
			if !strings.HasPrefix(deref(res.Stdout), tt.stdout) || !strings.Contains(deref(res.Stderr), tt.inErr) {
				t.Errorf("stdout %q stderr %q", deref(res.Stdout), deref(res.Stderr))
			}
			if strings.Contains(deref(res.Stdout), "SECRET") || strings.Contains(deref(res.Stdout), "must-not-pass") {
				t.Errorf("leaked: %q", deref(res.Stdout))
			}
			if tt.timeout && time.Since(start) > 4*time.Second {
				t.Errorf("timeout took %v", time.Since(start))
			}
		})
	}
	if data, _ := os.ReadFile(tr.outside); string(data) != "notes\n" {
		t.Errorf("outside file written: %q", data)
	}
	// the daemon's own threads stay unrestricted
	if _, err := os.ReadFile(tr.secret); err != nil {
		t.Errorf("the test process itself is now confined: %v", err)
	}
}

func TestShellOutputBounded(t *testing.T) {
	tr, _ := shellTree(t)
	tr.sess.Limits.MaxOutput = 1 << 20
	res := tr.run(t, tools.ExecuteShellCommand, map[string]any{"command": "head -c 3000000 /dev/zero; echo done >&2"})
	if res.ExitCode == nil || *res.ExitCode != 0 || !res.Truncated || len(deref(res.Stdout)) != 1<<20 || deref(res.Stderr) != "done\n" {
		t.Errorf("exit %v truncated %v stdout %d bytes stderr %q", res.ExitCode, res.Truncated, len(deref(res.Stdout)), deref(res.Stderr))
	}
}

// TestShellNeverUnconfined: without a confiner, or with a kernel without
// Landlock, an allowed command is refused, not run.
func TestShellNeverUnconfined(t *testing.T) {
	tests := []struct {
		name     string
		confiner tools.Confiner
	}{
		{"no confiner", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := newTree(t)
			tr.sess.Confiner = tt.confiner
			res := tr.run(t, tools.ExecuteShellCommand, map[string]any{"command": "touch ran"})
			if res.Error == "" || res.ExitCode != nil {
				t.Errorf("%+v; want refused", res)
			}
			if _, err := os.Stat(tr.work + "/ran"); err == nil {
				t.Error("the command ran")
			}
		})
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
