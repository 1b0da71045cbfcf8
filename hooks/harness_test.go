package hooks_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"pathgrant/apiclient"
	"pathgrant/devicepolicy"
	"pathgrant/engine"
	"pathgrant/grants"
	"pathgrant/guard"
	"pathgrant/ipc"
	"pathgrant/ipc/ipctest"
	"pathgrant/wire"
)

// hookBin is the pathgrant-hook binary TestMain builds for the tests that
// run the hook as a real process.
var hookBin string

// shimEnv turns this test binary into a stand-in agent process: it runs
// the command in the variable (JSON argv) with its own stdio and exits
// with its status. The daemon binds a hook-only session to the first
// non-shell ancestor of the hook; with the shim in between, that is the
// shim, not the test process, which may then approve like a user.
const shimEnv = "PATHGRANT_TEST_AGENT_SHIM"

func TestMain(m *testing.M) {
	if argv := os.Getenv(shimEnv); argv != "" {
		os.Exit(runShim(argv))
	}
	dir, err := os.MkdirTemp("", "pathgrant-hook-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	hookBin = filepath.Join(dir, "pathgrant-hook")
	if out, err := buildHook(hookBin); err != nil {
		fmt.Fprintf(os.Stderr, "build pathgrant-hook: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func runShim(argvJSON string) int {
	var argv []string
	if err := json.Unmarshal([]byte(argvJSON), &argv); err != nil || len(argv) == 0 {
		fmt.Fprintln(os.Stderr, "shim: bad argv")
		return 3
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = os.Environ()
	// A test that kills the stand-in agent takes its script with it, so
	// no waiting loop outlives the test (what the script started in the
	// background, as a hook an agent left behind, is the test's to end).
	cmd.SysProcAttr = dieWithParent()
	if err := cmd.Run(); err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		}
		fmt.Fprintln(os.Stderr, "shim:", err)
		return 3
	}
	return 0
}

func goTool() string {
	if p := filepath.Join(runtime.GOROOT(), "bin", "go"); fileExists(p) {
		return p
	}
	return "go"
}

func buildHook(out string) ([]byte, error) {
	cmd := exec.Command(goTool(), "build", "-o", out, "pathgrant/cmd/pathgrant-hook")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	return cmd.CombinedOutput()
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// daemon is a real ipc.Server on a real socket over a real store, in a
// temporary home with a workspace and a Downloads folder.
type daemon struct {
	t                    testing.TB
	root                 string
	home, work, dl, sock string
	store                *grants.Store
	srv                  *ipc.Server
	client               *apiclient.Client
	person               ipctest.Person // reads each request's approval code off the daemon's log
}

func newDaemon(t testing.TB, opts ...func(*ipc.Config)) *daemon {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	d := &daemon{t: t, root: root, home: root + "/home"}
	d.work, d.dl, d.sock = d.home+"/work", d.home+"/Downloads", root+"/run/pathgrant.sock"
	for _, f := range []string{d.work + "/main.go", d.dl + "/report.csv", d.home + "/.ssh/id_ed25519"} {
		writeFile(t, f, "a,b\n1,2\n")
	}
	d.store = ipctest.OpenStore(t, root+"/state/pathgrant.db")
	protected := []string{root + "/state", root + "/run"}
	for _, rel := range []string{".claude/settings.json", ".gemini/settings.json", ".codex/hooks.json", ".cursor/hooks.json", ".pi/agent/extensions"} {
		protected = append(protected, filepath.Join(d.home, rel))
	}
	cfg := ipc.Config{HooksBelow: true,
		Store: d.store, Home: d.home, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Device:   guard.DevicePolicy{EligibleReadOnly: []string{d.dl}, Protected: protected},
		Approver: d.person.Approver(),
		// Every process lives on, so what a hook leaves pending stays
		// pending after its stand-in agent exits; sessionend_test.go
		// watches the real processes.
		ProcAlive: func(engine.Proc) bool { return true },
	}
	for _, opt := range opts {
		opt(&cfg)
	}
	d.srv = ipc.New(cfg)
	ipctest.Serve(t, d.srv, d.sock)
	d.client = apiclient.New(d.sock)
	return d
}

// toolSettings gives a daemon a device policy file of the defaults but
// its unknown_tools and unmapped_tools ("" for the default), the two
// settings the daemon answers a hook's other-MCP and unmapped checks
// from.
func toolSettings(unknown, unmapped string) func(*ipc.Config) {
	return func(c *ipc.Config) {
		p := devicepolicy.Policy{Confinement: true, HoldOpens: true, UnknownTools: devicepolicy.AskClient,
			UnmappedTools: devicepolicy.DenyTool, RetentionDays: devicepolicy.DefaultRetentionDays,
			EligibleReadOnly: c.Device.EligibleReadOnly}
		if unknown != "" {
			p.UnknownTools = unknown
		}
		if unmapped != "" {
			p.UnmappedTools = unmapped
		}
		c.DeviceFile = func() devicepolicy.Policy { return p }
	}
}

// register registers a session as a launcher (`pathgrant run`) would.
func (d *daemon) register(req wire.SessionRequest) wire.SessionResponse {
	d.t.Helper()
	if req.Cwd == "" {
		req.Cwd, req.Workspace = d.work, []string{d.work}
	}
	resp, err := d.client.Register(context.Background(), req)
	if err != nil {
		d.t.Fatalf("register: %v", err)
	}
	return resp
}

// waitPending polls until n approval requests are pending.
func (d *daemon) waitPending(n int) []wire.Request {
	d.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if p := d.srv.Engine().Pending(); len(p) == n {
			return p
		}
		time.Sleep(5 * time.Millisecond)
	}
	d.t.Fatalf("pending requests never reached %d: %+v", n, d.srv.Engine().Pending())
	return nil
}

// expand replaces the fixtures' neutral home with the daemon's.
func (d *daemon) expand(s string) string {
	return strings.ReplaceAll(s, "/home/user", d.home)
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// hookRun is one run of the real hook binary.
type hookRun struct {
	stdout, stderr string
	exit           int
}

// runHook runs `pathgrant-hook client` under the agent shim with stdin and
// the extra environment, and waits for it.
func runHook(t testing.TB, client, stdin string, env ...string) hookRun {
	t.Helper()
	argv, _ := json.Marshal([]string{hookBin, client})
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, self)
	cmd.Env = append(hookEnv(), append(env, shimEnv+"="+string(argv))...)
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	run := hookRun{stdout: stdout.String(), stderr: stderr.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		run.exit = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run hook: %v", err)
	}
	return run
}

// hookEnv is the environment without any pathgrant variable of the
// developer's own session leaking into a test.
func hookEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PATHGRANT_") {
			env = append(env, kv)
		}
	}
	return env
}

// approveOnce waits up to 20 s for the pending request whose path ends
// in suffix and approves it once with the person's code.
func (d *daemon) approveOnce(t *testing.T, suffix string) {
	t.Helper()
	var id string
	for deadline := time.Now().Add(20 * time.Second); id == "" && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		for _, r := range d.srv.Engine().Pending() {
			if strings.HasSuffix(r.Path, suffix) {
				id = r.ID
			}
		}
	}
	if id == "" {
		t.Fatal("no approval request")
	}
	if _, err := d.client.Decide(context.Background(), id, wire.Decision{Scope: "once", Code: d.person.Code(t, id)}); err != nil {
		t.Fatalf("approve: %v", err)
	}
}
