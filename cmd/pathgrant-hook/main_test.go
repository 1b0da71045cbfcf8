package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"pathgrant/guard"
	"pathgrant/internal/buildcheck"
	"pathgrant/ipc"
	"pathgrant/ipc/ipctest"
)

// build runs `go build -o out args...` without cgo.
func build(t testing.TB, dir, out string, args ...string) {
	t.Helper()
	cmd := exec.Command(buildcheck.GoTool(), append([]string{"build", "-o", out}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if data, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %v: %v\n%s", args, err, data)
	}
}

// TestLeanDependencies: the hook links no UI, no store, no shell parser, no
// file watcher, no device policy parser (devicepolicy and its TOML
// parser, whose init alone costs a start-up a third of a millisecond: the
// daemon answers unknown_tools and unmapped_tools), no install-time code
// (hooks/clientconfig: the settings editors, Codex's trusted hashes, the
// MCP configuration editors, the Pi and Cline files), no crypto/sha256 nor
// regexp (whose package inits run at every start; the exec capability's
// command hash is launch.CommandHash, which only the front end and the
// daemon use), no third-party module and no net package, and builds
// without cgo.
func TestLeanDependencies(t *testing.T) {
	deps := buildcheck.Deps(t, "pathgrant/cmd/pathgrant-hook")
	forbidden := func(d string) bool {
		// Unicode normalisation, the one module package allowed: Pi and
		// Cline open the NFD spelling of a missing file, which the hook
		// must check too. Its tables are static data (its init takes
		// 0.04 ms, GODEBUG=inittrace=1).
		if d == "golang.org/x/text/unicode/norm" || d == "golang.org/x/text/transform" {
			return false
		}
		for _, prefix := range []string{"fyne.io/", "go.etcd.io/", "github.com/", "mvdan.cc/", "golang.org/x/", "pathgrant/devicepolicy", "pathgrant/hooks/clientconfig", "crypto/"} {
			if strings.HasPrefix(d, prefix) {
				return true
			}
		}
		switch d {
		case "pathgrant/ipc", "pathgrant/grants", "pathgrant/guard", "pathgrant/guard/protected", "pathgrant/prompt", "pathgrant/tray",
			"pathgrant/sandbox/launch", "net", "net/http", "net/netip", "runtime/cgo", "os/exec", "regexp":
			return true
		}
		return false
	}
	for _, d := range deps {
		if forbidden(d) {
			t.Errorf("pathgrant-hook depends on %s", d)
		}
	}
	if !slices.Contains(deps, "pathgrant/hooks") {
		t.Errorf("pathgrant-hook does not use pathgrant/hooks: %v", deps)
	}
	build(t, ".", filepath.Join(t.TempDir(), "pathgrant-hook"), ".")
}

// BenchmarkHookStartup measures, paired in each iteration, the hook on
// an allowed call end to end (`pathgrant-hook claude` on a Read in the
// workspace: process start, reading the hook JSON, the socket exchange,
// the daemon's decision, the answer) against nohook, a bare Go binary
// that reads the same JSON and answers {} (testdata/nohook, also the
// no-op hook of the e2e client timing). It reports the medians and their
// ratio; target: at most 1.5x.
func BenchmarkHookStartup(b *testing.B) {
	dir := b.TempDir()
	hook, bare := filepath.Join(dir, "pathgrant-hook"), filepath.Join(dir, "nohook")
	build(b, ".", hook, ".")
	build(b, ".", bare, "./testdata/nohook")
	sock, work := startDaemon(b)
	payload := []byte(fmt.Sprintf(`{"session_id":"bench-session","transcript_path":"/t.jsonl","cwd":%q,"permission_mode":"default",`+
		`"hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":%q},"tool_use_id":"toolu_1"}`, work, work+"/main.go"))
	env := []string{"PATH=" + os.Getenv("PATH"), "PATHGRANT_SOCKET=" + sock, "HOME=" + dir, "XDG_CONFIG_HOME=" + dir}
	run := func(bin string) time.Duration {
		cmd := exec.Command(bin, "claude")
		cmd.Env, cmd.Stdin = env, bytes.NewReader(payload)
		start := time.Now()
		out, err := cmd.CombinedOutput()
		took := time.Since(start)
		if err != nil || string(out) != "{}\n" {
			b.Fatalf("%s: %v: %q", bin, err, out)
		}
		return took
	}
	for range 10 { // warm the page cache and the daemon
		run(bare)
		run(hook)
	}
	var bares, hooks []time.Duration
	for b.Loop() {
		bares, hooks = append(bares, run(bare)), append(hooks, run(hook))
	}
	mb, mh := median(bares), median(hooks)
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ReportMetric(ms(mb), "bare-ms")
	b.ReportMetric(ms(mh), "hook-ms")
	b.ReportMetric(float64(mh)/float64(mb), "ratio")
}

func median(ds []time.Duration) time.Duration { return pct(ds, 50) }

func pct(ds []time.Duration, p int) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[(len(s)-1)*p/100]
}

// startDaemon runs a real daemon on a real socket in a temporary home and
// returns the socket and the workspace (which holds main.go).
func startDaemon(t testing.TB) (sock, work string) {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home := root + "/home"
	work, sock = home+"/work", root+"/run/pathgrant.sock"
	if err := os.MkdirAll(work, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(work+"/main.go", []byte("package main\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	store := ipctest.OpenStore(t, root+"/state/pathgrant.db")
	srv := ipc.New(ipc.Config{HooksBelow: true, Store: store, Home: home, Logger: ipctest.Quiet,
		Device: guard.DevicePolicy{EligibleReadOnly: []string{home + "/Downloads"}, Protected: []string{root + "/state", root + "/run"}}})
	ipctest.Serve(t, srv, sock)
	return sock, work
}
