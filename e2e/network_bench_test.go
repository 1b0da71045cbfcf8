package e2e

import (
	"context"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"pathgrant/e2e/testhost"
	"pathgrant/sandbox"
)

// The network namespace's costs, each beside its baseline in the same
// run: what a confined command pays to start with a namespace and a way
// out of it, and what a download pays to go through the daemon's proxy.

// benchRunTimeout bounds one measured command: a hung one fails the
// benchmark instead of stalling the run.
const benchRunTimeout = 60 * time.Second

// BenchmarkConfinedTrue times a confined `true` through `pathgrant exec
// --session`: "namespace" with `mode = "allow-public"` (a network
// namespace of its own, its listener handed to the daemon, which serves
// the proxy until the command ends), "host" with `mode = "host"` (no
// namespace, the baseline). Each has a daemon of its own; the session's
// registration is set-up, not timed.
func BenchmarkConfinedTrue(b *testing.B) {
	needNamespaces(b)
	bin := netBinaries(b)
	for _, m := range []struct{ name, mode string }{{"namespace", "allow-public"}, {"host", "host"}} {
		e := newNetEnv(b, bin, nil, netPolicy(m.mode, nil, false))
		b.Run(m.name, func(b *testing.B) {
			for b.Loop() {
				benchRun(b, func(ctx context.Context) *exec.Cmd { return e.execArgv(ctx, nil, []string{"true"}) })
			}
		})
	}
}

// bigBytes is what BenchmarkProxiedDownload fetches per run.
const bigBytes = 100 << 20

// BenchmarkProxiedDownload times curl fetching 100 MB from the test
// host's /big/N over HTTPS: "direct" from this process, over the veth
// (the baseline); "proxy" inside a confined command, through the
// daemon's proxy (CONNECT), the host's range allowed.
func BenchmarkProxiedDownload(b *testing.B) {
	needNamespaces(b)
	h := testhost.Start(b)
	bin := netBinaries(b)
	e := newNetEnv(b, bin, h, netPolicy("allow-public", h, true))
	url := h.URL("/big/" + strconv.Itoa(bigBytes))
	curl := []string{"curl", "-fsS", "-o", "/dev/null", "-w", "%{size_download}", url}
	runs := map[string]func(context.Context) *exec.Cmd{
		"direct": func(ctx context.Context) *exec.Cmd {
			cmd := exec.CommandContext(ctx, curl[0], append([]string{"--cacert", h.CAFile}, curl[1:]...)...)
			cmd.Env = []string{"PATH=" + netConfinedPath, "HOME=" + e.toolHome}
			return cmd
		},
		"proxy": func(ctx context.Context) *exec.Cmd { return e.execArgv(ctx, h, curl) },
	}
	for _, name := range []string{"direct", "proxy"} {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(bigBytes)
			for b.Loop() {
				if got := benchRun(b, runs[name]); got != strconv.Itoa(bigBytes) {
					b.Fatalf("curl fetched %q bytes, want %d", got, bigBytes)
				}
			}
		})
	}
}

// needNamespaces skips b where confined commands get no network
// namespace (no bubblewrap, or no user namespaces): there is nothing to
// measure.
func needNamespaces(b *testing.B) {
	if c := sandbox.Probe(); c.Level != sandbox.LevelFull {
		b.Skipf("confinement here is %q, not %q: no network namespace", c.Level, sandbox.LevelFull)
	}
}

// benchRun runs the command mk makes, bounded by benchRunTimeout, and
// returns its standard output; it fails b unless the command exits 0.
func benchRun(b *testing.B, mk func(context.Context) *exec.Cmd) string {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), benchRunTimeout)
	defer cancel()
	cmd := mk(ctx)
	var stderr agentsBuffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		b.Fatalf("%v: %v\n%s", cmd.Args, err, stderr.String())
	}
	return string(out)
}
