package tools_test

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"pathgrant/guard"
	"pathgrant/sandbox/kernel"
	"pathgrant/tools"
	"pathgrant/tools/confine"
)

func requireLandlock(t *testing.T) {
	t.Helper()
	if _, err := kernel.Available(kernel.ABI); err != nil {
		t.Skipf("no usable Landlock on this kernel: %v", err)
	}
}

// shellTree is a tree whose session runs commands under Landlock, with
// its tmp dirs in the test's own folder.
func shellTree(t *testing.T) (*tree, string) {
	t.Helper()
	requireLandlock(t)
	tr := newTree(t)
	runtime := t.TempDir()
	tr.sess.Confiner = confine.Landlock{Getenv: func(k string) string {
		if k == "XDG_RUNTIME_DIR" {
			return runtime
		}
		return ""
	}}
	return tr, runtime
}

func TestShellTool(t *testing.T) {
	tr, runtime := shellTree(t)
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
		{"TMPDIR is the session's", map[string]any{"command": "printenv TMPDIR"}, true, 0, runtime + "/pathgrant-exec/s-1\n", "", false},
		{"guard denies a visible secret read", map[string]any{"command": "cat ~/.ssh/id_ed25519"}, false, 0, "", "", false},
		{"the kernel refuses what the guard cannot see", map[string]any{"command": "./leak.sh"}, true, 1, "", "Permission denied", false},
		{"the kernel refuses a write outside", map[string]any{"command": "./w.sh"}, true, 2, "", "Permission denied", false},
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
		{"no landlock", confine.Landlock{Probe: func() (int, error) { return 3, nil }}},
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

// TestShellCannotSignalOut: a command the daemon runs is in a Landlock
// domain scoped for signals (ABI 6 and later), so it cannot signal the
// daemon itself, which sits outside that domain.
func TestShellCannotSignalOut(t *testing.T) {
	tr, _ := shellTree(t)
	if abi, _ := kernel.ABI(); abi < kernel.ScopeABI {
		t.Skipf("Landlock ABI %d has no signal scope (needs %d)", abi, kernel.ScopeABI)
	}
	writeFile(t, tr.work+"/sig.sh", fmt.Sprintf("#!/bin/sh\nkill -0 %d\n", os.Getpid()))
	if err := os.Chmod(tr.work+"/sig.sh", 0o755); err != nil {
		t.Fatal(err)
	}
	res := tr.run(t, tools.ExecuteShellCommand, map[string]any{"command": "./sig.sh"})
	if res.Decision != guard.Allow || res.ExitCode == nil || *res.ExitCode == 0 ||
		!strings.Contains(deref(res.Stderr), "Operation not permitted") {
		t.Fatalf("signalling the daemon from its command: %+v, stderr %q; want refused", res, deref(res.Stderr))
	}
}
