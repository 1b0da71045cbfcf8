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
// third-party module and no net package, and builds without cgo.
func TestLeanDependencies(t *testing.T) {
	deps := buildcheck.Deps(t, "pathgrant/cmd/pathgrant-hook")
	forbidden := func(d string) bool {
		for _, prefix := range []string{"fyne.io/", "go.etcd.io/", "github.com/", "mvdan.cc/", "golang.org/x/"} {
			if strings.HasPrefix(d, prefix) {
				return true
			}
		}
		switch d {
		case "pathgrant/ipc", "pathgrant/grants", "pathgrant/guard", "pathgrant/prompt", "pathgrant/tray",
			"net", "net/http", "runtime/cgo", "os/exec":
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

// TestHookLatency measures, in one run, `pathgrant-hook claude` on an
// allowed call end to end (process start, reading the hook JSON, the
// socket exchange, the daemon's decision, the answer) against the start
// of a bare Go binary that does nothing. Target: under 5 ms median and
// at most 3x the bare start. Run it alone with
//
//	PATHGRANT_TIMING=1 go test -count=1 -run TestHookLatency -v ./cmd/pathgrant-hook
func TestHookLatency(t *testing.T) {
	if testing.Short() {
		t.Skip("latency measurement skipped in -short mode")
	}
	dir := t.TempDir()
	hook, bare := filepath.Join(dir, "pathgrant-hook"), filepath.Join(dir, "bare")
	build(t, ".", hook, ".")
	if err := os.WriteFile(filepath.Join(dir, "bare.go"), []byte("package main\n\nfunc main() {}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	build(t, dir, bare, "bare.go")

	sock, work := startDaemon(t)
	payload := []byte(fmt.Sprintf(`{"session_id":"bench-session","transcript_path":"/t.jsonl","cwd":%q,"permission_mode":"default",`+
		`"hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":%q},"tool_use_id":"toolu_1"}`, work, work+"/main.go"))
	env := []string{"PATH=" + os.Getenv("PATH"), "PATHGRANT_SOCKET=" + sock}
	downEnv := []string{"PATH=" + os.Getenv("PATH"), "PATHGRANT_SOCKET=" + filepath.Join(dir, "nobody.sock")}
	runOnce := func(bin string, args ...string) time.Duration {
		cmd := exec.Command(bin, args...)
		cmd.Env = env
		if len(args) > 1 {
			cmd.Env, cmd.Args = downEnv, cmd.Args[:2]
		}
		cmd.Stdin = bytes.NewReader(payload)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		start := time.Now()
		err := cmd.Run()
		took := time.Since(start)
		if err != nil || bin == hook && len(args) == 1 && out.String() != "{}\n" {
			t.Fatalf("%s: %v: %q", bin, err, out.String())
		}
		return took
	}
	const warm, n = 20, 200
	for range warm {
		runOnce(bare)
		runOnce(hook, "claude")
	}
	// Up to three attempts: the machines these run on are shared.
	for attempt := 1; attempt <= 3; attempt++ {
		var bares, hooks, alone []time.Duration
		for range n { // interleaved, so all see the same machine load
			bares = append(bares, runOnce(bare))
			hooks = append(hooks, runOnce(hook, "claude"))
			alone = append(alone, runOnce(hook, "claude", "no-daemon"))
		}
		mb, mh := median(bares), median(hooks)
		ratio := float64(mh) / float64(mb)
		t.Logf("attempt %d: bare Go binary start: median %v (p90 %v); pathgrant-hook claude, allowed Read: median %v (p90 %v); "+
			"ratio %.2fx; the hook with no daemon to ask (its own share): median %v (n=%d each)",
			attempt, mb, pct(bares, 90), mh, pct(hooks, 90), ratio, median(alone), n)
		ratioOK, absOK := ratio <= 3, mh < 5*time.Millisecond
		if ratioOK && (absOK || !timingAsserted()) {
			return
		}
		if attempt == 3 {
			t.Errorf("hook median %v, %.2fx the bare start %v: the targets are under 5 ms and at most 3x", mh, ratio, mb)
		}
	}
}

// timingAsserted: the absolute target (5 ms) is asserted only when the
// run has the machine to itself (PATHGRANT_TIMING=1, as in scripts/test's
// timing step); the ratio to a bare start, measured interleaved, always.
func timingAsserted() bool { return os.Getenv("PATHGRANT_TIMING") == "1" }

func median(ds []time.Duration) time.Duration { return pct(ds, 50) }

func pct(ds []time.Duration, p int) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[(len(s)-1)*p/100]
}

// startDaemon runs a real daemon on a real socket in a temporary home and
// returns the socket and the workspace (which holds main.go).
func startDaemon(t *testing.T) (sock, work string) {
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
