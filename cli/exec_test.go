package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"pathgrant/apiclient"
	"pathgrant/appdirs"
	"pathgrant/devicepolicy"
	"pathgrant/grants"
	"pathgrant/guard"
	"pathgrant/ipc"
	"pathgrant/ipc/ipctest"
	"pathgrant/sandbox"
	"pathgrant/sandbox/kernel"
	"pathgrant/wire"
)

// execEnv is a real daemon served from this process, a registered session
// with a workspace, a Downloads folder and a secret outside both.
type execEnv struct {
	root, home, work, dl, secret, tmp, sock string
	store                                   *grants.Store
	person                                  *ipctest.Person
	srv                                     *ipc.Server
	sess                                    wire.SessionResponse
	// noHold turns the device policy's hold_opens off: a confined read
	// that needs the person fails at once and is explained afterwards.
	noHold atomic.Bool
}

const secretText = "TOPSECRET"

func newExecEnv(t testing.TB) *execEnv {
	t.Helper()
	return newExecEnvAt(t, sandbox.Probe())
}

// newExecEnvAt is newExecEnv with a daemon that confines at conf's level,
// its configuration changed by opts.
func newExecEnvAt(t testing.TB, conf sandbox.Confinement, opts ...func(*ipc.Config)) *execEnv {
	t.Helper()
	return newExecEnvIn(t, "", conf, opts...)
}

// newExecEnvIn is newExecEnvAt with every folder of the environment (its
// home, so the workspace and Downloads, the daemon's socket and state) in
// a new folder under base; "" is the test's own temporary folder.
func newExecEnvIn(t testing.TB, base string, conf sandbox.Confinement, opts ...func(*ipc.Config)) *execEnv {
	t.Helper()
	dir := t.TempDir()
	if base != "" {
		var err error
		if dir, err = os.MkdirTemp(base, "pathgrant-test-"); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
	}
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	e := &execEnv{root: root, home: root + "/home", secret: root + "/secret/secret.txt", tmp: root + "/tmp",
		sock: root + "/run/pathgrant.sock"}
	e.work, e.dl = e.home+"/work", e.home+"/Downloads"
	for path, content := range map[string]string{
		e.work + "/main.go": "package main\n", e.work + "/src/a.txt": "a\n", e.work + "/secrets/key": "k\n",
		e.work + "/.claude/settings.json": "{}\n", e.dl + "/report.csv": "a,b\n", e.dl + "/other.csv": "c,d\n",
		e.dl + "/swap.csv": "s\n", e.secret: secretText + "\n", e.tmp + "/.keep": "",
	} {
		writeExecFile(t, path, content)
	}
	e.serve(t, conf, opts...)
	return e
}

func writeExecFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// serve starts the daemon, registers the session (the secrets folder is
// blocked-write) and grants it reads of report.csv and swap.csv.
func (e *execEnv) serve(t testing.TB, conf sandbox.Confinement, opts ...func(*ipc.Config)) {
	t.Helper()
	var err error
	e.store = ipctest.OpenStore(t, e.root+"/state/pathgrant.db")
	e.person = &ipctest.Person{}
	level := conf.Level
	if conf.Level == sandbox.LevelNone {
		level = ""
	}
	cfg := ipc.Config{HooksBelow: true, Store: e.store, Home: e.home, Logger: ipctest.Quiet, Confinement: level, Approver: e.person.Approver(),
		Device: guard.DevicePolicy{EligibleReadOnly: []string{e.dl}, Protected: []string{e.root + "/state", e.root + "/run"}},
		Launcher: sandbox.Launcher{Confinement: conf, Getenv: os.Getenv, Home: e.home, Socket: e.sock,
			Exe: testFrontEnd(t)}, DeviceFile: e.deviceFile(t)}
	useHeldView(t, &cfg, conf, e.sock)
	for _, o := range opts {
		o(&cfg)
	}
	e.srv = ipc.New(cfg)
	ipctest.Serve(t, e.srv, e.sock)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	e.sess, err = apiclient.New(e.sock).Register(ctx, wire.SessionRequest{Agent: "test-agent", Cwd: e.work,
		Workspace: []string{e.work}, BlockedWrite: []string{e.work + "/secrets"}})
	if err != nil {
		t.Fatalf("register: %v", err)
	}
	for _, f := range []string{"report.csv", "swap.csv"} {
		_, err := e.store.Put(grants.NewGrant{Scope: grants.ScopeSession, Op: guard.OpRead, Path: e.dl + "/" + f,
			Kind: guard.KindFile, Session: e.sess.ID})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// deviceFile is the device policy file's defaults for the session's
// home, as the daemon's watcher would have them with no file written.
func (e *execEnv) deviceFile(t testing.TB) func() devicepolicy.Policy {
	t.Helper()
	env, err := devicepolicy.Locate(func(k string) string { return map[string]string{"HOME": e.home}[k] })
	if err != nil {
		t.Fatal(err)
	}
	pol, err := devicepolicy.Load(devicepolicy.Dir(func(string) string { return "" }, e.home), env)
	if err != nil {
		t.Fatal(err)
	}
	return func() devicepolicy.Policy {
		p := pol
		p.HoldOpens = !e.noHold.Load()
		return p
	}
}

// env is the environment the agent's shell would give exec.
func (e *execEnv) env() []string {
	return []string{"PATH=/usr/bin:/bin", "HOME=" + e.home, "TMPDIR=" + e.tmp, "LANG=en_US.UTF-8",
		appdirs.SessionEnv + "=" + e.sess.ID, appdirs.TokenEnv + "=" + e.sess.Token}
}

type execResult struct {
	code           int
	stdout, stderr string
}

// execCmd returns `pathgrant exec --socket S ARGS...` run in the workspace.
func (e *execEnv) execCmd(bin string, args ...string) *exec.Cmd {
	cmd := exec.Command(bin, append([]string{"exec", "--socket", e.sock}, args...)...)
	cmd.Env, cmd.Dir = e.env(), e.work
	return cmd
}

func runCmd(t testing.TB, cmd *exec.Cmd) execResult {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("run %v: %v", cmd.Args, err)
	}
	return execResult{cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()}
}

// Wanted statuses that are not one number.
const (
	anyFailure = -1 // not 0
	anyStatus  = -2 // the status does not matter, only what happened
)

// statusOK reports whether code is the wanted status.
func statusOK(code, want int) bool {
	switch want {
	case anyStatus:
		return true
	case anyFailure:
		return code != 0
	}
	return code == want
}

func TestExecSandbox(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs commands under Landlock")
	}
	requireKernelLandlock(t)
	bin := buildBinary(t)
	e := newExecEnv(t)
	e.noHold.Store(true) // the kernel's own refusals: held opens are door_hold_test's
	for _, l := range []struct{ link, target string }{{e.work + "/to-secret", e.secret}, {e.work + "/to-dl", e.dl}} {
		if err := os.Symlink(l.target, l.link); err != nil {
			t.Fatal(err)
		}
	}
	// Granted, then replaced by a link to the secret before exec runs.
	if err := os.Remove(e.dl + "/swap.csv"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(e.secret, e.dl+"/swap.csv"); err != nil {
		t.Fatal(err)
	}
	outsideTmp := filepath.Join(os.TempDir(), "pathgrant-exec-test-"+strconv.Itoa(os.Getpid()))
	t.Cleanup(func() { os.Remove(outsideTmp) })
	tests := []struct {
		name         string
		args         []string
		code         int
		stdout, errs string // wanted in stdout and stderr
	}{
		{"workspace read", []string{"cat", "main.go"}, 0, "package main", ""},
		{"workspace write in a subfolder", []string{"sh", "-c", "echo hi > src/new.txt && cat src/new.txt && rm src/new.txt"}, 0, "hi", ""},
		{"granted file read", []string{"cat", e.dl + "/report.csv"}, 0, "a,b", ""},
		{"granted file read through a workspace link to its folder", []string{"cat", "to-dl/report.csv"}, 0, "a,b", ""},
		{"granted file append", []string{"sh", "-c", "echo x >> " + e.dl + "/report.csv"}, anyFailure, "", denied},
		{"granted file moved into the workspace", []string{"mv", e.dl + "/report.csv", "stolen.csv"}, anyFailure, "", denied},
		{"granted file deleted", []string{"rm", e.dl + "/report.csv"}, anyFailure, "", denied},
		{"granted file truncated", []string{"truncate", "-s", "0", e.dl + "/report.csv"}, anyFailure, "", denied},
		{"ungranted Downloads file: denied, approval requested", []string{"cat", e.dl + "/other.csv"}, anyFailure, "", "needs approval"},
		{"secret", []string{"cat", e.secret}, anyFailure, "", denied},
		{"secret through a workspace symlink", []string{"cat", "to-secret"}, anyFailure, "", denied},
		{"grant swapped for a symlink to the secret", []string{"cat", e.dl + "/swap.csv"}, anyFailure, "", denied},
		{"command substitution", []string{"bash", "-c", "$(echo cat) " + e.secret}, anyFailure, "", denied},
		{"python", []string{"/usr/bin/python3", "-c", "print(open(" + strconv.Quote(e.secret) + ").read())"}, anyFailure, "", "PermissionError|FileNotFoundError"},
		{"xargs", []string{"sh", "-c", "echo " + e.secret + " | xargs cat"}, anyFailure, "", denied},
		{"find -exec", []string{"find", ".", "-maxdepth", "1", "-name", "main.go", "-exec", "cat", e.secret, ";"}, anyStatus, "", denied},
		{"find in the secret's folder", []string{"find", filepath.Dir(e.secret), "-type", "f"}, anyFailure, "", denied},
		{"blocked-write file", []string{"sh", "-c", "echo x > secrets/key"}, anyFailure, "", denied},
		{"blocked-write folder: new file", []string{"touch", "secrets/new"}, anyFailure, "", denied},
		{"blocked-write folder: delete", []string{"rm", "-r", "secrets"}, anyFailure, "", denied},
		{"protected hook settings: write", []string{"sh", "-c", "echo '{\"hooks\":{}}' > .claude/settings.json"}, anyFailure, "", denied},
		{"protected hook settings: replace", []string{"sh", "-c", "echo x > src/s.json && mv src/s.json .claude/settings.json"}, anyFailure, "", denied},
		{"protected hook settings: folder moved aside", []string{"sh", "-c", "mv .claude .claude-old"}, anyFailure, "", denied},
		{"protected hook settings: read", []string{"cat", ".claude/settings.json"}, 0, "{}", ""},
		{"existing file at the workspace root", []string{"sh", "-c", "echo '// x' >> main.go"}, 0, "", ""},
		{"session tmp dir", []string{"sh", "-c", `echo x > "$TMPDIR/f" && cat "$TMPDIR/f" && echo "$TMPDIR"`}, 0, e.tmp + "/pathgrant-exec-", ""},
		// The view's /tmp is private: writes there never reach the real one.
		{"tmp outside the session tmp dir", []string{"sh", "-c", "echo x > " + e.tmp + "/other"}, anyStatus, "", ""},
		{"system /tmp", []string{"sh", "-c", "echo x > " + outsideTmp}, anyStatus, "", ""},
		{"dev null and system files", []string{"sh", "-c", "echo x > /dev/null && head -c0 /etc/passwd && echo ok"}, 0, "ok", ""},
		{"exit status is the command's", []string{"sh", "-c", "exit 7"}, 7, "", ""},
		{"no such command", []string{"no-such-command-xyz"}, execNotFound, "", "executable file not found"},
		{"--allow-unconfined changes nothing when Landlock works", []string{"--allow-unconfined", "--", "cat", e.secret}, anyFailure, "", denied},
		{"--verbose gives the guard's reason", []string{"--verbose", "--", "bash", "-c", "cat $(echo x)"}, anyFailure, "", "pathgrant exec: guard:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runCmd(t, e.execCmd(bin, tt.args...))
			if !statusOK(r.code, tt.code) {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", r.code, tt.code, r.stdout, r.stderr)
			}
			if !strings.Contains(r.stdout, tt.stdout) || !regexp.MustCompile(tt.errs).MatchString(r.stderr) {
				t.Errorf("stdout %q (want %q), stderr %q (want %q)", r.stdout, tt.stdout, r.stderr, tt.errs)
			}
			if strings.Contains(r.stdout+r.stderr, secretText) {
				t.Errorf("the secret leaked: %q %q", r.stdout, r.stderr)
			}
		})
	}
	e.checkUntouched(t, outsideTmp)
}

// denied matches the ways a confined command is refused a file: Landlock
// (EACCES), a read-only mount (EROFS), a mount point that cannot be moved
// (EBUSY), or the file not being in the view at all (ENOENT).
const denied = "Permission denied|Read-only file system|Device or resource busy|No such file or directory"

// checkUntouched: what the commands were refused did not happen.
func (e *execEnv) checkUntouched(t *testing.T, outsideTmp string) {
	t.Helper()
	for path, want := range map[string]string{e.dl + "/report.csv": "a,b\n", e.work + "/secrets/key": "k\n",
		e.work + "/.claude/settings.json": "{}\n"} {
		if data, err := os.ReadFile(path); err != nil || string(data) != want {
			t.Errorf("%s = %q, %v; want %q", path, data, err, want)
		}
	}
	for _, path := range []string{e.work + "/secrets/new", e.work + "/.claude-old", e.tmp + "/other", outsideTmp} {
		if _, err := os.Lstat(path); err == nil {
			t.Errorf("%s exists", path)
		}
	}
	if n := len(e.srv.Engine().Pending()); n != 1 {
		t.Errorf("%d approval requests pending, want 1 (other.csv)", n)
	}
}

func requireKernelLandlock(t testing.TB) {
	t.Helper()
	if _, err := kernel.Available(kernel.ABI); err != nil {
		t.Skipf("no usable Landlock on this kernel: %v", err)
	}
}

// TestExecWaitsForApproval: with --wait, an eligible denial waits for the
// user; an approval (here once, which the check itself consumes) is in the
// ruleset, a denial is not.
func TestExecWaitsForApproval(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs commands under Landlock")
	}
	requireKernelLandlock(t)
	bin := buildBinary(t)
	e := newExecEnv(t)
	tests := []struct {
		scope string
		code  int
		want  string
	}{
		{"once", 0, "c,d"},
		{"deny", anyFailure, ""},
	}
	for _, tt := range tests {
		t.Run(tt.scope, func(t *testing.T) {
			cmd := e.execCmd(bin, "--wait", "20s", "--", "cat", e.dl+"/other.csv")
			done := make(chan execResult, 1)
			go func() { done <- runCmd(t, cmd) }()
			id := e.waitPending(t, e.dl+"/other.csv")
			if _, err := e.srv.Engine().Decide(id, wire.Decision{Scope: tt.scope}); err != nil {
				t.Fatalf("decide: %v", err)
			}
			r := <-done
			if !statusOK(r.code, tt.code) || !strings.Contains(r.stdout, tt.want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d and %q", r.code, r.stdout, r.stderr, tt.code, tt.want)
			}
		})
	}
}

func (e *execEnv) waitPending(t *testing.T, path string) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		for _, r := range e.srv.Engine().Pending() {
			if r.Path == path {
				return r.ID
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("no approval request for %s", path)
	return ""
}

// TestExecRefuses: without a daemon, a session or a machine that can
// confine, nothing runs.
func TestExecRefuses(t *testing.T) {
	e := newExecEnv(t)
	none := newExecEnvAt(t, sandbox.Confinement{Level: sandbox.LevelNone})
	tests := []struct {
		name string
		e    *execEnv
		args []string
		code int
		errs string
	}{
		{"no daemon", e, []string{"--socket", e.root + "/none.sock", "--", "true"}, execRefused, wire.NotRunning(e.root + "/none.sock")},
		{"unknown session", e, []string{"--socket", e.sock, "--session", "nope", "--", "true"}, execRefused, "unknown session"},
		{"the machine cannot confine", none, []string{"--socket", none.sock, "--", "true"}, execRefused, "refusing to run true unconfined"},
		{"cannot confine, guard denies, --allow-unconfined", none,
			[]string{"--socket", none.sock, "--allow-unconfined", "--", "cat", none.secret}, execRefused, "no kernel enforcement and the guard denies"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ran [][]string
			d := tt.e.fakeDeps(&ran)
			var stdout, stderr bytes.Buffer
			code := runExecWith(tt.args, &stdout, &stderr, d)
			if code != tt.code || !strings.Contains(stderr.String(), tt.errs) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr.String(), tt.code, tt.errs)
			}
			if len(ran) > 0 {
				t.Errorf("ran %v", ran)
			}
		})
	}
}

// fakeDeps are the session's environment and an execve that records
// what it would have run.
func (e *execEnv) fakeDeps(ran *[][]string) execDeps {
	env := map[string]string{}
	for _, kv := range e.env() {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	return execDeps{
		getenv: func(k string) string { return env[k] }, environ: e.env,
		execve: func(path string, argv, _ []string) error {
			*ran = append(*ran, append([]string{path}, argv...))
			return nil
		},
	}
}

// TestExecAllowUnconfined: on a machine that cannot confine and with
// --allow-unconfined, an allowed command runs unconfined, with a warning.
func TestExecAllowUnconfined(t *testing.T) {
	e := newExecEnvAt(t, sandbox.Confinement{Level: sandbox.LevelNone})
	var ran [][]string
	d := e.fakeDeps(&ran)
	var stdout, stderr bytes.Buffer
	code := runExecWith([]string{"--socket", e.sock, "--allow-unconfined", "--", "cat", e.work + "/main.go"}, &stdout, &stderr, d)
	cat, err := exec.LookPath("cat")
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{{cat, "cat", e.work + "/main.go"}}
	if code != 0 || !slices.EqualFunc(ran, want, slices.Equal) {
		t.Errorf("exit %d, ran %v; want 0 and %v (stderr %q)", code, ran, want, stderr.String())
	}
	if s := stderr.String(); !strings.Contains(s, "level=WARN") || !strings.Contains(s, "WITHOUT kernel enforcement") {
		t.Errorf("stderr %q: want a warning", s)
	}
}

func TestExecUsage(t *testing.T) {
	env := map[string]string{appdirs.SessionEnv: "s1"}
	tests := []struct {
		name string
		args []string
		env  map[string]string
		code int
		out  string
	}{
		{"help", []string{"--help"}, env, 0, "usage: pathgrant exec"},
		{"no command", []string{"--"}, env, exitUsage, "no command given"},
		{"no session", []string{"--", "true"}, map[string]string{}, exitUsage, "no session"},
		{"unknown flag", []string{"--bogus", "true"}, env, exitUsage, "flag provided but not defined"},
		{"negative wait", []string{"--wait", "-1s", "true"}, env, exitUsage, "must not be negative"},
		{"bad wait", []string{"--wait", "soon", "true"}, env, exitUsage, "invalid value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := systemExecDeps()
			d.getenv = func(k string) string { return tt.env[k] }
			var stdout, stderr bytes.Buffer
			code := runExecWith(tt.args, &stdout, &stderr, d)
			if code != tt.code || !strings.Contains(stdout.String()+stderr.String(), tt.out) {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d and %q", code, stdout.String(), stderr.String(), tt.code, tt.out)
			}
		})
	}
}

// BenchmarkExecOverhead measures what `pathgrant exec -- true` adds to
// running `true`: the binary starting, the pre-flight check and policy
// round trips, building the ruleset and restricting. startup-ms is the
// same binary doing nothing (`pathgrant exec --help`); own-ms is what is
// left of added-ms without it: exec's own work.
func BenchmarkExecOverhead(b *testing.B) {
	requireKernelLandlock(b)
	bin := buildBinary(b)
	e := newExecEnv(b)
	truePath, err := exec.LookPath("true")
	if err != nil {
		b.Fatal(err)
	}
	run := func(cmd *exec.Cmd) time.Duration {
		start := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v: %v\n%s", cmd.Args, err, out)
		}
		return time.Since(start)
	}
	var plain, confined, startup []time.Duration
	for b.Loop() {
		plain = append(plain, run(exec.Command(truePath)))
		confined = append(confined, run(e.execCmd(bin, "--", "true")))
		startup = append(startup, run(e.execCmd(bin, "--help")))
	}
	// Medians: a process start on these machines has a long tail that
	// would swamp a mean.
	p, c, s := median(plain), median(confined), median(startup)
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ReportMetric(ms(p), "true-ms")
	b.ReportMetric(ms(c), "exec-ms")
	b.ReportMetric(ms(c-p), "added-ms")
	b.ReportMetric(ms(s), "startup-ms")
	b.ReportMetric(ms(c-s), "own-ms")
}

func median(d []time.Duration) time.Duration {
	slices.Sort(d)
	return d[len(d)/2]
}

// testFrontEnd is the pathgrant-confine the test daemon's own tool calls
// run their inner step with: the one built next to buildBinary's.
func testFrontEnd(t testing.TB) string {
	t.Helper()
	return filepath.Join(filepath.Dir(buildBinary(t)), sandbox.ConfineName)
}
