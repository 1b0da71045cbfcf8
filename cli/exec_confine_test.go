package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"pathgrant/apiclient"
	"pathgrant/sandbox"
	"pathgrant/sandbox/frontend"
	"pathgrant/sandbox/rules"
	"pathgrant/wire"
)

// requireFullConfinement skips unless this machine confines with a
// bubblewrap view and Landlock.
func requireFullConfinement(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary and runs commands confined")
	}
	if c := sandbox.Probe(); c.Level != sandbox.LevelFull {
		t.Skipf("confinement here is %q, not %q: %v", c.Level, sandbox.LevelFull, c.Gaps)
	}
}

// need returns the path of tool, or skips saying it is missing.
func need(t *testing.T, tool string) string {
	t.Helper()
	path, err := exec.LookPath(tool)
	if err != nil {
		t.Skipf("%s is not installed: %v", tool, err)
	}
	return path
}

// outside is something the test starts outside the sandbox for a confined
// command to try to reach.
type outside struct {
	name  string
	setup func(t *testing.T, e *execEnv) (script string) // "" skips
}

// TestExecEscapes: each command tries to reach something outside its
// sandbox that it must not, and fails.
func TestExecEscapes(t *testing.T) {
	requireFullConfinement(t)
	bin := buildBinary(t)
	e := newExecEnv(t)
	cases := []outside{
		{"connect to the daemon's socket", func(t *testing.T, e *execEnv) string {
			return pyConnect(t, e.sock)
		}},
		{"connect to a socket in the hidden runtime folder", func(t *testing.T, e *execEnv) string {
			return pyConnect(t, listenUnix(t, e.root+"/run/other.sock"))
		}},
		{"signal the test process", func(t *testing.T, e *execEnv) string {
			return "kill -0 " + strconv.Itoa(os.Getpid())
		}},
		{"signal a sleep started outside", func(t *testing.T, e *execEnv) string {
			return "kill -TERM " + strconv.Itoa(startSleep(t))
		}},
		{"D-Bus session bus by path", func(t *testing.T, e *execEnv) string {
			return dbusSend(t, startDBus(t, "unix:path="+e.root+"/run/bus"))
		}},
		{"D-Bus session bus, abstract socket", func(t *testing.T, e *execEnv) string {
			return dbusSend(t, startDBus(t, fmt.Sprintf("unix:abstract=pathgrant-test-%d", os.Getpid())))
		}},
		{"X11 client", func(t *testing.T, e *execEnv) string {
			need(t, "xdotool")
			return "DISPLAY=" + startXvfb(t) + " xdotool getmouselocation"
		}},
		{"tmux server by socket path", func(t *testing.T, e *execEnv) string {
			sock := e.root + "/run/tmux.sock"
			startTmux(t, "-S", sock)
			return "tmux -S " + sock + " send-keys -t 0 'touch " + e.root + "/pwned' Enter"
		}},
		{"tmux server on its default socket", func(t *testing.T, e *execEnv) string {
			name := fmt.Sprintf("pathgrant-test-%d", os.Getpid())
			startTmux(t, "-L", name)
			return "tmux -L " + name + " send-keys -t 0 'touch " + e.root + "/pwned' Enter"
		}},
		{"read a file outside the workspace", func(t *testing.T, e *execEnv) string { return "cat " + e.secret }},
		{"create the agent's settings in a missing folder", func(t *testing.T, e *execEnv) string {
			return "mkdir -p .gemini && echo '{}' > .gemini/settings.json"
		}},
		{"create the agent's local settings", func(t *testing.T, e *execEnv) string {
			return "echo '{}' > .claude/settings.local.json"
		}},
		{"create codex hooks", func(t *testing.T, e *execEnv) string { return "echo '{}' > .codex/hooks.json" }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			script := c.setup(t, e)
			r := runCmd(t, e.execCmd(bin, "--", "sh", "-c", script))
			if r.code == 0 {
				t.Errorf("%q succeeded confined; stdout %q stderr %q", script, r.stdout, r.stderr)
			}
		})
	}
	for _, p := range []string{e.root + "/pwned", e.work + "/.gemini/settings.json", e.work + "/.claude/settings.local.json",
		e.work + "/.codex/hooks.json"} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s exists", p)
		}
	}
}

// TestExecConfinedWork: what real work needs works confined.
func TestExecConfinedWork(t *testing.T) {
	requireFullConfinement(t)
	bin := buildBinary(t)
	e := newExecEnv(t)
	writeExecFile(t, e.home+"/.gitconfig", "[user]\n\tname = Test\n\temail = test@example.com\n[init]\n\tdefaultBranch = main\n")
	cases := []struct {
		name   string
		tools  []string
		env    []string
		script string
		want   string
	}{
		{"a file at the workspace root", nil, nil, "echo hi > top.txt && cat top.txt && rm top.txt", "hi"},
		{"sh", []string{"sh"}, nil, "echo $((6*7))", "42"},
		{"system python", []string{"python3"}, nil, "/usr/bin/python3 -c 'print(6*7)'", "42"},
		{"go build", []string{"go"}, seededGoEnv(t, e), "mkdir -p gomod && cd gomod && printf 'module m\\ngo 1.21\\n' > go.mod && " +
			"printf 'package main\\nfunc main() { println(\"built\") }\\n' > main.go && go build -o m . && ./m", "built"},
		{"git init and commit", []string{"git"}, nil, "mkdir repo && cd repo && git init -q && echo a > a && git add a && " +
			"git commit -qm first && git log --format=%an", "Test"},
		{"python venv", []string{"python3"}, nil, "/usr/bin/python3 -m venv --without-pip venv && " +
			"echo 'import sys; print(sys.prefix)' > s.py && venv/bin/python s.py", e.work + "/venv"},
		{"npm", []string{"npm"}, nil, "npm --version", "."},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, tool := range c.tools {
				need(t, tool)
			}
			cmd := e.execCmd(bin, "--", "sh", "-c", c.script)
			cmd.Env = append(cmd.Env, c.env...)
			r := runCmd(t, cmd)
			if r.code != 0 || !strings.Contains(r.stdout+r.stderr, c.want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want 0 and %q", r.code, r.stdout, r.stderr, c.want)
			}
		})
	}
}

// seededGoEnv is goEnv with the build cache seeded (seedGoCache).
func seededGoEnv(t *testing.T, e *execEnv) []string {
	env := goEnv(e)
	seedGoCache(t, e.home+"/.cache/go-build")
	return env
}

// goEnv puts the go command on PATH and its caches in the device
// policy's default caches under the session's home.
func goEnv(e *execEnv) []string {
	goroot := ""
	if path, err := exec.LookPath("go"); err == nil {
		goroot, _ = filepath.EvalSymlinks(filepath.Dir(path))
	}
	for _, d := range []string{e.home + "/.cache", e.home + "/go/pkg/mod"} {
		os.MkdirAll(d, 0o700)
	}
	return []string{"PATH=" + goroot + ":/usr/bin:/bin", "GOCACHE=" + e.home + "/.cache/go-build",
		"GOMODCACHE=" + e.home + "/go/pkg/mod", "GOPATH=" + e.home + "/go", "GOTOOLCHAIN=local", "GOFLAGS=", "CGO_ENABLED=0"}
}

// pyConnect is a script connecting to the Unix socket at path.
func pyConnect(t *testing.T, path string) string {
	need(t, "python3")
	return fmt.Sprintf(`/usr/bin/python3 -c 'import socket; s = socket.socket(socket.AF_UNIX); s.connect(%q); print("connected")'`, path)
}

// listenUnix listens on a Unix socket at path until the test ends.
func listenUnix(t *testing.T, path string) string {
	t.Helper()
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	return path
}

// startSleep starts a sleep outside the sandbox and returns its pid.
func startSleep(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd.Process.Pid
}

// startDBus starts a session bus on address and returns the address it
// prints.
func startDBus(t *testing.T, address string) string {
	t.Helper()
	need(t, "dbus-daemon")
	need(t, "dbus-send")
	cmd := exec.Command("dbus-daemon", "--session", "--address="+address, "--nofork", "--print-address")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	buf := make([]byte, 512)
	n, err := out.Read(buf)
	if err != nil {
		t.Fatalf("dbus-daemon: %v", err)
	}
	addr := strings.TrimSpace(string(buf[:n]))
	// The address works from outside.
	if out, err := exec.Command("sh", "-c", dbusSend(t, addr)).CombinedOutput(); err != nil {
		t.Fatalf("the bus does not answer outside the sandbox: %v\n%s", err, out)
	}
	return addr
}

func dbusSend(t *testing.T, addr string) string {
	return "DBUS_SESSION_BUS_ADDRESS='" + addr + "' dbus-send --session --print-reply --dest=org.freedesktop.DBus / org.freedesktop.DBus.ListNames"
}

// startXvfb starts an X server (its sockets are /tmp/.X11-unix/XN and the
// abstract @/tmp/.X11-unix/XN) and returns its display.
func startXvfb(t *testing.T) string { return startXvfbWith(t, "-nolisten", "tcp") }

// startXvfbWith is startXvfb with the server's listening options (a
// person's server may listen on TCP with no access control: -listen tcp
// -ac).
func startXvfbWith(t *testing.T, listen ...string) string {
	t.Helper()
	need(t, "Xvfb")
	// Xvfb picks a free display itself (-displayfd): a fixed number can be
	// held by another user's server, or by the lock file of one killed
	// before it could remove it.
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd := exec.Command("Xvfb", append([]string{"-displayfd", "3"}, listen...)...)
	cmd.ExtraFiles = []*os.File{w}
	err = cmd.Start()
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { // SIGTERM: Xvfb removes its lock file
		cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(r).ReadString('\n')
		line <- strings.TrimSpace(s)
	}()
	var display string
	select {
	case n := <-line:
		display = ":" + n
	case <-time.After(10 * time.Second):
	}
	if display == ":" || display == "" {
		t.Fatal("Xvfb did not say which display it took")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for ctx.Err() == nil {
		probe := exec.Command("xdotool", "getmouselocation")
		probe.Env = append(os.Environ(), "DISPLAY="+display)
		if probe.Run() == nil {
			return display
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("Xvfb %s did not start", display)
	return ""
}

// startTmux starts a tmux server outside the sandbox on the given socket
// (-S PATH or -L NAME).
func startTmux(t *testing.T, sock ...string) {
	t.Helper()
	need(t, "tmux")
	args := append(sock, "new-session", "-d", "sh")
	cmd := exec.Command("tmux", args...)
	cmd.Env = append(os.Environ(), "TMUX=")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tmux: %v\n%s", err, out)
	}
	t.Cleanup(func() { exec.Command("tmux", append(sock, "kill-server")...).Run() })
	ls := exec.Command("tmux", append(sock, "list-sessions")...)
	if out, err := ls.CombinedOutput(); err != nil {
		t.Fatalf("the tmux server does not answer outside the sandbox: %v\n%s", err, out)
	}
}

// BenchmarkConfinedOverhead measures, paired in each iteration, a bare
// `true`, a bare `bwrap --ro-bind / / true` and a confined `true`
// (bubblewrap view and Landlock, stderr captured as an agent's tool
// captures it). added-ms is what confinement adds to `true`,
// bwrap-added-ms what bare bubblewrap adds, ratio the one over the other.
// Sub-benchmarks, one per door: "capability" is a hook's rewritten
// command, the default path: pathgrant-confine presents the capability
// and the daemon answers with the sandbox prepared (the hook's check that
// issued the capability is the hook's cost and is not timed; every
// iteration is one more command of one hook session, as an agent's
// commands are, so a session's registration is not counted); "session"
// is `pathgrant exec` with a session and its token (a pre-flight check
// that returns a capability, then the same front end); "tool" is
// execute_shell_command on the tool route (`bash -c true`: the daemon
// prepares and runs the sandbox as its child), "mcp" the same through
// `pathgrant mcp` over stdio. The parts (capability and session), each over a
// bare `true`: startup-ms is the front end's binary starting at all
// (pathgrant-confine, or pathgrant); policy-ms the daemon round trips
// (made here, in process: for a capability the one that prepares the
// sandbox, for a session the check and the policy fetch); view-ms
// bubblewrap with the view running `true` directly; inner-ms the inner
// step (pathgrant-confine starting, the Landlock ruleset and restriction,
// and the second exec of `true`), without bubblewrap; rest-ms what is
// left: the front end's own work between them (for a session, the view,
// the rules and the job) and running bubblewrap as its child.
func BenchmarkConfinedOverhead(b *testing.B) {
	if c := sandbox.Probe(); c.Level != sandbox.LevelFull {
		b.Skipf("confinement here is %q, not %q", c.Level, sandbox.LevelFull)
	}
	bin := buildBinary(b)
	e := newExecEnv(b)
	truePath, err := exec.LookPath("true")
	if err != nil {
		b.Fatal(err)
	}
	bwrap := sandbox.Probe().Bwrap
	view, job := e.benchView(b, bin, truePath)
	run := func(cmd *exec.Cmd) time.Duration {
		start := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v: %v\n%s", cmd.Args, err, out)
		}
		return time.Since(start)
	}
	started := func(cmd *exec.Cmd) time.Duration { // the binary's usage error: it started, and stopped at once
		start := time.Now()
		var ee *exec.ExitError
		if out, err := cmd.CombinedOutput(); !errors.As(err, &ee) {
			b.Fatalf("%v: %v (want a usage error)\n%s", cmd.Args, err, out)
		}
		return time.Since(start)
	}
	frontEnd := map[string]func() *exec.Cmd{
		"session":    func() *exec.Cmd { return e.execCmd(bin) },
		"capability": func() *exec.Cmd { return exec.Command(filepath.Join(filepath.Dir(bin), sandbox.ConfineName)) },
	}
	tool := e.client()
	b.Cleanup(tool.CloseIdle)
	mcpSession := e.benchMCP(b, bin)
	args := json.RawMessage(`{"command":"true"}`)
	confined := map[string]func() time.Duration{
		"session": func() time.Duration { return run(e.execCmd(bin, "--", "true")) },
		"capability": func() time.Duration {
			_, capability := e.hookCapability(b, "bench", "true")
			return run(e.capCmd(bin, capability, "true"))
		},
		"tool": func() time.Duration {
			start := time.Now()
			res, err := tool.Tool(context.Background(), "execute_shell_command", wire.ToolRequest{Args: args})
			if err != nil || res.ExitCode == nil || *res.ExitCode != 0 {
				b.Fatalf("tool route: %+v, %v", res, err)
			}
			return time.Since(start)
		},
		"mcp": func() time.Duration {
			start := time.Now()
			res, err := mcpSession.CallTool(context.Background(), &sdk.CallToolParams{Name: "execute_shell_command",
				Arguments: map[string]any{"command": "true"}})
			if err != nil || res.IsError {
				b.Fatalf("pathgrant mcp: %+v, %v", res, err)
			}
			return time.Since(start)
		},
	}
	for _, name := range []string{"capability", "session", "tool", "mcp"} {
		b.Run(name, func(b *testing.B) {
			var plain, bare, conf, startup, policy, viewT, inner []time.Duration
			parts := frontEnd[name] != nil
			for b.Loop() {
				plain = append(plain, run(exec.Command(truePath)))
				bare = append(bare, run(exec.Command(bwrap, "--ro-bind", "/", "/", truePath)))
				conf = append(conf, confined[name]())
				if !parts {
					continue
				}
				startup = append(startup, started(frontEnd[name]()))
				policy = append(policy, e.policyRoundTrips(b, bin, name == "capability"))
				viewT = append(viewT, run(exec.Command(bwrap, slices.Concat(view.Options(os.Geteuid() == 0), []string{"--", truePath})...)))
				inner = append(inner, run(job()))
			}
			p := median(plain)
			ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
			added, bwrapAdded := median(conf)-p, median(bare)-p
			b.ReportMetric(ms(p), "true-ms")
			b.ReportMetric(ms(median(conf)), "exec-ms")
			b.ReportMetric(ms(added), "added-ms")
			b.ReportMetric(ms(bwrapAdded), "bwrap-added-ms")
			b.ReportMetric(float64(added)/float64(bwrapAdded), "ratio")
			if !parts {
				return
			}
			b.ReportMetric(ms(median(startup)-p), "startup-ms")
			b.ReportMetric(ms(median(policy)), "policy-ms")
			b.ReportMetric(ms(median(viewT)-p), "view-ms")
			b.ReportMetric(ms(median(inner)-p), "inner-ms")
			sum := median(startup) - p + median(policy) + median(viewT) - p + median(inner) - p
			b.ReportMetric(ms(added-sum), "rest-ms")
		})
	}
}

// benchMCP is `pathgrant mcp` for the session, driven over stdio.
func (e *execEnv) benchMCP(b *testing.B, bin string) *sdk.ClientSession {
	cmd := exec.Command(bin, "mcp", "--socket", e.sock)
	cmd.Env, cmd.Dir = e.env(), e.work
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(),
		&sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		b.Fatalf("pathgrant mcp: %v", err)
	}
	b.Cleanup(func() { cs.Close() })
	return cs
}

// benchView builds exec's view for the session, and returns it with a
// maker of inner-step commands (a fresh job descriptor each) that run
// `true` under the session's rules.
func (e *execEnv) benchView(b *testing.B, bin, truePath string) (sandbox.View, func() *exec.Cmd) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	pol, err := e.client().Policy(ctx)
	if err != nil {
		b.Fatal(err)
	}
	tmp, err := sandbox.SessionTmpDir(sandbox.TmpBase(func(k string) string { return map[string]string{"TMPDIR": e.tmp}[k] }), pol.Session)
	if err != nil {
		b.Fatal(err)
	}
	in := sandbox.Input{Policy: pol, TmpDir: tmp, System: sandbox.SystemRules()}
	inner, bins := sandbox.InnerStep(bin)
	view, err := sandbox.BuildView(in, bins, sandbox.OSFS{})
	if err != nil {
		b.Fatal(err)
	}
	in.ByMount, in.PrivateTmp = view.ByMount, true
	rs, err := sandbox.Build(in, sandbox.OSFS{})
	if err != nil {
		b.Fatal(err)
	}
	data, err := json.Marshal(rules.Job{Rules: rs, Path: truePath, Argv: []string{"true"}})
	if err != nil {
		b.Fatal(err)
	}
	jobFile := filepath.Join(b.TempDir(), "job")
	if err := os.WriteFile(jobFile, data, 0o600); err != nil {
		b.Fatal(err)
	}
	return view, func() *exec.Cmd {
		f, err := os.Open(jobFile)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { f.Close() })
		argv := append(slices.Clone(inner), "3")
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.ExtraFiles = []*os.File{f}
		return cmd
	}
}

func (e *execEnv) client() *apiclient.Client {
	return apiclient.ForSession(e.sock, e.sess.ID, e.sess.Token)
}

// policyRoundTrips times the daemon round trips on a new client: for
// `pathgrant exec` with a session, the pre-flight
// check that returns a capability and the request that presents it; for
// a hook's capability, the one request that has the
// daemon prepare the sandbox (launch.Fetch, as pathgrant-confine makes it).
func (e *execEnv) policyRoundTrips(b *testing.B, bin string, capability bool) time.Duration {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if capability {
		_, secret := e.hookCapability(b, "bench", "true")
		req := wire.ExecRequest{Path: "/bin/bash", Argv: []string{"bash", "-c", "true"},
			Exe: filepath.Join(filepath.Dir(bin), sandbox.ConfineName), Env: e.env()}
		start := time.Now()
		if _, err := frontend.Fetch(e.sock, secret, req); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	c := e.client()
	defer c.CloseIdle()
	start := time.Now()
	ans, err := c.Check(ctx, wire.CheckRequest{Command: "true", ExecCommand: "true", ExecAnyway: true, Tool: "exec"})
	if err != nil || ans.Exec == nil || ans.Exec.Capability == "" {
		b.Fatalf("pre-flight check: %+v, %v", ans, err)
	}
	truePath, _ := exec.LookPath("true")
	req := wire.ExecRequest{Path: truePath, Argv: []string{"true"}, Exe: bin, Env: e.env()}
	if _, err := frontend.Fetch(e.sock, ans.Exec.Capability, req); err != nil {
		b.Fatal(err)
	}
	return time.Since(start)
}
