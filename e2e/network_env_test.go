package e2e

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"pathgrant/apiclient"
	"pathgrant/ipc/ipctest"
	"pathgrant/wire"

	"pathgrant/e2e/testhost"
)

// The environment of the network tests: a real headless daemon whose
// device policy file the test wrote before starting it, one session of
// it, and a workspace holding everything the session's confined commands
// use, since they see nothing else of the machine but its system
// folders: a HOME for the tools, a copy of the test host's CA, and ssh's
// key, known_hosts and config.

// netConfinedPath is the PATH of the confined commands: system folders only
// (the view shows those), so a tool found there is the one that runs.
const netConfinedPath = "/usr/local/go/bin:/usr/local/bin:/usr/bin:/bin"

// netBinaries builds pathgrant and pathgrant-confine, side by side as the
// daemon looks for them, into a folder of tb's, and returns pathgrant's
// path. Without cgo: neither needs the desktop libraries.
func netBinaries(tb testing.TB) string {
	tb.Helper()
	dir := tb.TempDir()
	gotool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(gotool); err != nil {
		gotool = "go"
	}
	cmd := exec.Command(gotool, "build", "-o", dir+"/", "pathgrant", "pathgrant/cmd/pathgrant-confine")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("building pathgrant and pathgrant-confine: %v\n%s", err, out)
	}
	return filepath.Join(dir, "pathgrant")
}

// netEnv is one daemon, its session and the session's workspace.
type netEnv struct {
	tb                    testing.TB
	bin                   string // pathgrant
	home, work, toolHome  string // the daemon's HOME, the workspace, the tools' HOME inside it
	sock, store, logPath  string
	caFile, wgetrc, sshRC string // the test host's trust and ssh's config, inside the workspace
	sess                  wire.SessionResponse
	client                *apiclient.Client
}

// netPolicy is a device policy file holding a [network] table with mode,
// and the test host's range in allow_ranges when allowRange.
func netPolicy(mode string, h *testhost.Host, allowRange bool) string {
	p := fmt.Sprintf("[network]\nmode = %q\n", mode)
	if allowRange {
		p += fmt.Sprintf("allow_ranges = [%q]\n", h.Range.String())
	}
	return p
}

// newNetEnv writes policy as the device policy file of a fresh home,
// fills the workspace for h (nil: a command that reaches no host),
// starts the daemon and registers the session.
func newNetEnv(tb testing.TB, bin string, h *testhost.Host, policy string) *netEnv {
	tb.Helper()
	root, err := filepath.EvalSymlinks(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	e := &netEnv{tb: tb, bin: bin, home: root + "/home", sock: root + "/run/pathgrant.sock",
		store: root + "/state/pathgrant.db", logPath: root + "/daemon.log"}
	e.work = e.home + "/work"
	e.toolHome = e.work + "/home"
	netWrite(tb, e.home+"/.config/pathgrant/policy.toml", []byte(policy), 0o600)
	if err := os.MkdirAll(e.toolHome, 0o700); err != nil {
		tb.Fatal(err)
	}
	if h != nil {
		e.fillWorkspace(h)
	}
	e.startDaemon(h)
	e.client = apiclient.New(e.sock)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	e.sess, err = e.client.Register(ctx, wire.SessionRequest{Agent: "test-agent", Cwd: e.work, Workspace: []string{e.work}})
	if err != nil {
		tb.Fatalf("registering the session: %v\n%s", err, e.log())
	}
	return e
}

// fillWorkspace copies into the workspace what the tools need of h: its
// CA (with a wgetrc naming the copy: wget reads no CA variable), and
// ssh's key, known_hosts and a config naming them. ssh reads its config
// from the account's home (getpwuid), not $HOME, and the account's
// ~/.ssh is a credential folder the view hides anyway: the git-over-ssh
// row hands this config to ssh with -F.
func (e *netEnv) fillWorkspace(h *testhost.Host) {
	tb := e.tb
	trust, ssh := e.work+"/.trust", e.work+"/.sshcfg"
	e.caFile, e.wgetrc, e.sshRC = trust+"/ca.pem", trust+"/wgetrc", ssh+"/config"
	netWrite(tb, e.caFile, netRead(tb, h.CAFile), 0o644)
	netWrite(tb, e.wgetrc, []byte("ca_certificate = "+e.caFile+"\ncheck_certificate = on\n"), 0o644)
	netWrite(tb, ssh+"/key", netRead(tb, h.ClientKey), 0o600)
	netWrite(tb, ssh+"/known_hosts", netRead(tb, h.KnownHosts), 0o644)
	netWrite(tb, e.sshRC, []byte(strings.Join([]string{
		"Host *",
		"  IdentityFile " + ssh + "/key",
		"  IdentitiesOnly yes",
		"  UserKnownHostsFile " + ssh + "/known_hosts",
		"  GlobalKnownHostsFile /dev/null",
		"  StrictHostKeyChecking yes",
		"  BatchMode yes",
		"",
	}, "\n")), 0o600)
}

// toolEnv is h's tool environment for the tools' HOME, every file it
// names outside the workspace replaced by the workspace's copy: a
// confined command would not see the original.
func (e *netEnv) toolEnv(h *testhost.Host) []string {
	env := h.ToolEnv(e.toolHome)
	for i, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		switch {
		case k == "WGETRC":
			env[i] = k + "=" + e.wgetrc
		case v == h.CAFile:
			env[i] = k + "=" + e.caFile
		}
	}
	return env
}

// startDaemon runs `pathgrant serve --headless` on the env's socket and
// store, logging to logPath, and waits until it answers; the test's
// cleanup stops it with SIGTERM and fails the test if it does not stop.
//
// The daemon resolves every destination its proxy connects to, and h's
// name resolves for it alone: it runs in a mount namespace of its own
// whose /etc/hosts names h (unshare execs, so the pid is the daemon's);
// the machine's /etc/hosts is untouched. A row that must name the host
// by name (npm: see netToolRows) needs it.
func (e *netEnv) startDaemon(h *testhost.Host) {
	tb := e.tb
	logf, err := os.Create(e.logPath)
	if err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command(e.bin, "serve", "--headless", "--socket", e.sock, "--store", e.store)
	if h != nil {
		hosts := filepath.Dir(e.logPath) + "/hosts"
		netWrite(tb, hosts, append(netRead(tb, "/etc/hosts"), "\n"+h.Addr.String()+" "+testhost.HostName+"\n"...), 0o644)
		cmd = exec.Command("unshare", append([]string{"--mount", "--propagation", "private", "--", "/bin/sh", "-c",
			`mount --bind "$0" /etc/hosts && exec "$@"`, hosts}, cmd.Args...)...)
	}
	cmd.Env = e.personEnv()
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		tb.Fatalf("starting the daemon: %v", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait(); logf.Close() }()
	tb.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-exited:
			if err != nil {
				tb.Errorf("the daemon: %v\n%s", err, e.log())
			}
		case <-time.After(10 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
			tb.Errorf("the daemon did not stop on SIGTERM\n%s", e.log())
		}
	})
	awaitHealthy(tb, e.sock, exited, e.log)
}

// personEnv is the environment of the daemon and of the person's own
// commands (approve, deny): the test's home, its daemon's socket.
func (e *netEnv) personEnv() []string {
	return []string{"HOME=" + e.home, "PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8", "TERM=dumb",
		"USER=" + os.Getenv("USER"), "TMPDIR=" + os.TempDir(), "PATHGRANT_SOCKET=" + e.sock}
}

// agentEnv is the environment of the agent's shell running `pathgrant
// exec`: the session's token, the tools' HOME in the workspace, no
// system or machine-wide configuration of git, pip or npm, h's tool
// environment (none for a nil h), then extra.
func (e *netEnv) agentEnv(h *testhost.Host, extra ...string) []string {
	env := []string{"PATH=" + netConfinedPath, "HOME=" + e.toolHome, "LANG=C.UTF-8", "TERM=dumb",
		"PATHGRANT_SOCKET=" + e.sock, "PATHGRANT_TOKEN=" + e.sess.Token,
		"GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0", "PIP_CONFIG_FILE=" + os.DevNull,
		"npm_config_globalconfig=" + os.DevNull}
	if h != nil {
		env = append(env, e.toolEnv(h)...)
	}
	return append(env, extra...)
}

// execCmd is `pathgrant exec --session ID -- bash -c script` in the
// workspace, with the agent's environment.
func (e *netEnv) execCmd(ctx context.Context, h *testhost.Host, script string, extra ...string) *exec.Cmd {
	return e.execArgv(ctx, h, []string{"bash", "-c", script}, extra...)
}

// execArgv is `pathgrant exec --session ID -- ARGV...` in the workspace,
// with the agent's environment.
func (e *netEnv) execArgv(ctx context.Context, h *testhost.Host, argv []string, extra ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, e.bin, append([]string{"exec", "--session", e.sess.ID, "--"}, argv...)...)
	cmd.Dir, cmd.Env = e.work, e.agentEnv(h, extra...)
	return cmd
}

// netRun is a confined command running.
type netRun struct {
	out  *agentsBuffer
	done chan struct{}
	err  error
}

// start runs script confined, bounded by ctx, under `timeout`: a process
// of its own between `pathgrant exec` and this test, so the daemon takes
// timeout (the first process above exec that is no shell) for the
// session's agent, and this test stays the person, who may approve.
func (e *netEnv) start(ctx context.Context, h *testhost.Host, script string, extra ...string) *netRun {
	e.tb.Helper()
	inner := e.execCmd(ctx, h, script, extra...)
	cmd := exec.CommandContext(ctx, "timeout", "--kill-after=5", "120", inner.Args[0])
	cmd.Args = append(cmd.Args, inner.Args[1:]...)
	cmd.Dir, cmd.Env = inner.Dir, inner.Env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	r := &netRun{out: &agentsBuffer{}, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = r.out, r.out
	if err := cmd.Start(); err != nil {
		e.tb.Fatalf("starting pathgrant exec: %v", err)
	}
	go func() {
		r.err = cmd.Wait()
		close(r.done)
	}()
	e.tb.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-r.done
	})
	return r
}

// wait waits for the run to end and returns its exit status (-1 when it
// was killed or never ran) and output.
func (r *netRun) wait() (int, string) {
	<-r.done
	var ee *exec.ExitError
	switch {
	case r.err == nil:
		return 0, r.out.String()
	case errors.As(r.err, &ee):
		return ee.ExitCode(), r.out.String()
	}
	return -1, r.out.String()
}

// awaitRequest polls the daemon until a request other than those
// decided is pending, and returns it; it fails when the run ends first
// or ctx does.
func (e *netEnv) awaitRequest(ctx context.Context, r *netRun, decided ...string) wire.Request {
	e.tb.Helper()
	for {
		reqs, err := e.client.Pending(ctx)
		if err != nil {
			e.tb.Fatalf("pending: %v\n%s", err, e.log())
		}
		if i := slices.IndexFunc(reqs, func(q wire.Request) bool { return !slices.Contains(decided, q.ID) }); i >= 0 {
			return reqs[i]
		}
		select {
		case <-r.done:
			code, out := r.wait()
			e.tb.Fatalf("the command ended (exit %d) before any request:\n%s\ndaemon:\n%s", code, out, e.log())
		case <-ctx.Done():
			e.tb.Fatalf("no request: %v\n%s", ctx.Err(), e.log())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// approve approves request id from the person's terminal with scope,
// the choice's approval code from the headless daemon's log piped on
// standard input.
func (e *netEnv) approve(id, scope string) {
	e.tb.Helper()
	code := ipctest.LogCode(e.tb, e.log, id, scope)
	e.person(code+"\n", "approve", id, "--scope", scope, "--yes")
}

// deny denies request id from the person's terminal; with session, for
// the rest of the session.
func (e *netEnv) deny(id string, session bool) {
	e.tb.Helper()
	args := []string{"deny", id}
	if session {
		args = append(args, "--session")
	}
	e.person("", args...)
}

// person runs a pathgrant command of the person's, stdin on its standard
// input, and fails the test unless it succeeds.
func (e *netEnv) person(stdin string, args ...string) {
	e.tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, e.bin, args...)
	cmd.Env = e.personEnv()
	cmd.Stdin = strings.NewReader(stdin)
	if out, err := cmd.CombinedOutput(); err != nil {
		e.tb.Fatalf("pathgrant %s: %v\n%s\ndaemon:\n%s", strings.Join(args, " "), err, out, e.log())
	}
}

// netLoggedRequest matches the headless daemon's line for a request raised,
// the one that carries its approval codes.
var netLoggedRequest = regexp.MustCompile(`\bid=(\S+) .*\bcodes=`)

// requestsRaised are the ids of every request the daemon raised, from
// its log: the headless daemon logs each once, with its codes.
func (e *netEnv) requestsRaised() []string {
	var ids []string
	for _, line := range strings.Split(e.log(), "\n") {
		if m := netLoggedRequest.FindStringSubmatch(line); m != nil && !slices.Contains(ids, m[1]) {
			ids = append(ids, m[1])
		}
	}
	return ids
}

func (e *netEnv) log() string {
	data, _ := os.ReadFile(e.logPath)
	return string(data)
}

func netWrite(tb testing.TB, path string, data []byte, mode os.FileMode) {
	tb.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(path, data, mode); err != nil {
		tb.Fatal(err)
	}
}

func netRead(tb testing.TB, path string) []byte {
	tb.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return data
}
