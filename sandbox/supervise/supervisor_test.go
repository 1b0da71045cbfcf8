//go:build linux && (amd64 || arm64)

package supervise_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"pathgrant/sandbox/kernel"
	"pathgrant/sandbox/rules"
	"pathgrant/sandbox/supervise"
	"pathgrant/wire"
)

// The tests run real commands under Landlock with the supervisor's
// filter, as the inner step does, the test process being the supervisor:
// a helper (this test binary, re-run) restricts itself and execs the
// command. The approvable root has no Landlock rule, so only a descriptor
// the supervisor hands over can read it.

const helperEnv = "PATHGRANT_SUPERVISE_HELPER"

type helperJob struct {
	Rules  []rules.Rule
	Argv   []string
	Dir    string
	NoHold bool // Landlock alone, no filter: the baseline
}

func TestMain(m *testing.M) {
	if raw := os.Getenv(helperEnv); raw != "" {
		os.Exit(helperMain(raw))
	}
	os.Exit(m.Run())
}

func helperMain(raw string) int {
	var job helperJob
	if err := json.Unmarshal([]byte(raw), &job); err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		return 125
	}
	if err := os.Chdir(job.Dir); err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		return 125
	}
	rs, err := kernel.NewRuleset(job.Rules)
	if err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		return 125
	}
	path, err := exec.LookPath(job.Argv[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		return 125
	}
	hold := 3
	if job.NoHold {
		hold = 0
	}
	err = rs.Exec(path, job.Argv, []string{"PATH=/usr/bin:/bin", "LANG=C"}, hold, func(err error) {
		fmt.Fprintln(os.Stderr, "helper: not held:", err)
	})
	fmt.Fprintln(os.Stderr, "helper:", err)
	return 125
}

// world is a temporary home: a workspace, an approvable Downloads with a
// report, a secret outside both, and the rules a confined command gets
// (the system read-only, the workspace read-write, nothing for the rest).
type world struct {
	work, downloads, secret string
	rules                   []rules.Rule
}

const (
	reportText = "id,total\n1,42\n"
	secretText = "-----BEGIN OPENSSH PRIVATE KEY-----"
)

func newWorld(t testing.TB) world {
	t.Helper()
	if _, err := kernel.Available(kernel.ABI); err != nil {
		t.Skipf("no usable Landlock: %v", err)
	}
	if err := supervise.Available(); err != nil {
		t.Skipf("this kernel cannot hold opens: %v", err)
	}
	home, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w := world{work: filepath.Join(home, "work"), downloads: filepath.Join(home, "Downloads"), secret: filepath.Join(home, ".ssh", "id_rsa")}
	for _, d := range []string{w.work, w.downloads, filepath.Dir(w.secret), filepath.Join(w.downloads, "sub")} {
		must(t, os.MkdirAll(d, 0o755))
	}
	must(t, os.WriteFile(filepath.Join(w.downloads, "report.csv"), []byte(reportText), 0o644))
	must(t, os.WriteFile(filepath.Join(w.downloads, "sub", "other.csv"), []byte("other\n"), 0o644))
	must(t, os.WriteFile(w.secret, []byte(secretText), 0o600))
	must(t, os.Symlink(w.secret, filepath.Join(w.downloads, "link")))
	must(t, os.WriteFile(filepath.Join(w.work, "mine.txt"), []byte("mine\n"), 0o644))
	for _, d := range []string{"/usr", "/bin", "/lib", "/lib64", "/etc"} {
		w.rules = append(w.rules, rules.Rule{Path: d, Access: rules.ReadExec, Follow: true, Why: "system"})
	}
	w.rules = append(w.rules,
		rules.Rule{Path: "/proc", Access: rules.ReadOnly, Why: "proc"},
		rules.Rule{Path: "/dev/null", Access: rules.DeviceRW, Why: "null"},
		rules.Rule{Path: w.work, Access: rules.ReadWrite, Why: "workspace"})
	return w
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// asker is the daemon and the person in one: decide says what the person
// does with each read asked for; it records what was asked.
type asker struct {
	mu     sync.Mutex
	asked  []wire.HoldRequest
	decide func(ctx context.Context, r wire.HoldRequest) (wire.HoldAnswer, error)
}

func (a *asker) AskHold(ctx context.Context, r wire.HoldRequest) (wire.HoldAnswer, error) {
	a.mu.Lock()
	a.asked = append(a.asked, r)
	a.mu.Unlock()
	return a.decide(ctx, r)
}

func (a *asker) paths() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []string
	for _, r := range a.asked {
		out = append(out, r.Path)
	}
	return out
}

// approveAll approves whatever is asked, exactly as named: a daemon that
// does not canonicalise, so what the supervisor itself refuses shows.
func approveAll(ctx context.Context, r wire.HoldRequest) (wire.HoldAnswer, error) {
	return wire.HoldAnswer{Allowed: true, Path: r.Path}, nil
}

func denyAll(ctx context.Context, r wire.HoldRequest) (wire.HoldAnswer, error) {
	return wire.HoldAnswer{Line: "pathgrant: " + r.Path + ": denied by the person"}, nil
}

// run is one supervised command's outcome.
type run struct {
	out, err string
	code     int
	said     []string
}

// supervised runs argv confined in w with the supervisor and a.
func supervised(t *testing.T, w world, a *asker, argv ...string) run {
	t.Helper()
	cmd, listener := start(t, w, argv)
	var said []string
	var mu sync.Mutex
	sup := &supervise.Supervisor{Roots: []string{w.downloads}, Ask: a, Say: func(l string) {
		mu.Lock()
		said = append(said, l)
		mu.Unlock()
	}}
	stop := serve(t, sup, listener)
	err := cmd.Wait()
	if err := stop(); err != nil {
		t.Errorf("Serve: %v", err)
	}
	r := run{out: cmd.Stdout.(*bytes.Buffer).String(), err: cmd.Stderr.(*bytes.Buffer).String(), said: said}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return r
}

// start runs the helper with the filter socket at descriptor 3 and
// returns it with the listener it sent.
func start(t testing.TB, w world, argv []string) (*exec.Cmd, int) {
	t.Helper()
	pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	must(t, err)
	child := os.NewFile(uintptr(pair[1]), "hold")
	job, _ := json.Marshal(helperJob{Rules: w.rules, Argv: argv, Dir: w.work})
	cmd := exec.Command(os.Args[0])
	cmd.Env = []string{helperEnv + "=" + string(job), "PATH=/usr/bin:/bin"}
	cmd.ExtraFiles = []*os.File{child}
	cmd.Stdout, cmd.Stderr = &bytes.Buffer{}, &bytes.Buffer{}
	must(t, cmd.Start())
	child.Close()
	defer unix.Close(pair[0])
	listener, err := supervise.Receive(pair[0])
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("receive: %v (stderr %s)", err, cmd.Stderr)
	}
	return cmd, listener
}

// serve runs sup on listener until the returned stop is called (or the
// test ends); stop returns what Serve returned.
func serve(t testing.TB, sup *supervise.Supervisor, listener int) (stop func() error) {
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- sup.Serve(ctx, listener) }()
	var once sync.Once
	var err error
	stop = func() error {
		once.Do(func() { cancel(); err = <-served })
		return err
	}
	t.Cleanup(func() { stop() })
	return stop
}

func TestHeldOpenApproved(t *testing.T) {
	w := newWorld(t)
	report := filepath.Join(w.downloads, "report.csv")
	tests := []struct {
		name  string
		argv  []string
		want  string
		asked []string
	}{
		{"cat", []string{"cat", report}, reportText, []string{report}},
		{"test -f, then cat", []string{"sh", "-c", "test -f " + report + " && cat " + report}, reportText, []string{report}},
		{"ls the folder", []string{"ls", w.downloads}, "link\nreport.csv\nsub\n", []string{w.downloads}},
		{"cp into the workspace", []string{"sh", "-c", "cp " + report + " copy.csv && cat copy.csv"}, reportText, []string{report}},
		{"relative from a changed cwd", []string{"sh", "-c", "cd " + w.downloads + " && cat ./report.csv"}, reportText, []string{report}},
		{"python open", []string{"python3", "-c", "print(open('" + report + "').read(), end='')"}, reportText, []string{report}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &asker{decide: approveAll}
			r := supervised(t, w, a, tt.argv...)
			if r.code != 0 || r.out != tt.want {
				t.Fatalf("exit %d, stdout %q (want %q), stderr %s, said %q", r.code, r.out, tt.want, r.err, r.said)
			}
			if got := a.paths(); strings.Join(got, ",") != strings.Join(tt.asked, ",") {
				t.Errorf("asked %q, want %q", got, tt.asked)
			}
		})
	}
}

func TestHeldOpenWithoutApprovalFails(t *testing.T) {
	w := newWorld(t)
	report := filepath.Join(w.downloads, "report.csv")
	a := &asker{decide: denyAll}
	r := supervised(t, w, a, "cat", report)
	if r.code == 0 || r.out != "" || !strings.Contains(r.err, "Permission denied") {
		t.Fatalf("exit %d, stdout %q, stderr %q: want EACCES", r.code, r.out, r.err)
	}
	if len(r.said) != 1 || !strings.Contains(r.said[0], "denied by the person") {
		t.Errorf("said %q, want the one refusal line", r.said)
	}
}

// TestHeldOpenNeverYieldsTheUnapproved: whatever the person approves (here
// everything, as named), no way of opening yields a descriptor to a file
// other than the one named and approved, and what is not a plain read is
// never held at all.
func TestHeldOpenNeverYieldsTheUnapproved(t *testing.T) {
	w := newWorld(t)
	report := filepath.Join(w.downloads, "report.csv")
	py := func(code string) []string { return []string{"python3", "-c", code} }
	tests := []struct {
		name  string
		argv  []string
		asked int // how many reads may be asked for
	}{
		{"write open", py(fmt.Sprintf("open(%q, 'a').write('x')", report)), 0},
		{"read-write open", py(fmt.Sprintf("open(%q, 'r+').read()", report)), 0},
		{"create", py(fmt.Sprintf("open(%q, 'x').write('x')", filepath.Join(w.downloads, "new"))), 0},
		{"truncate", py(fmt.Sprintf("import os; os.open(%q, os.O_RDONLY|os.O_TRUNC)", report)), 0},
		{"O_PATH then reopen", py(fmt.Sprintf("import os; fd=os.open(%q, os.O_PATH); print(open('/proc/self/fd/%%d' %% fd).read())", report)), 0},
		{"a link to the secret", []string{"cat", filepath.Join(w.downloads, "link")}, 1},
		{"dot-dot out of the root", []string{"cat", w.downloads + "/../.ssh/id_rsa"}, 0},
		{"relative dot-dot", []string{"sh", "-c", "cd " + w.downloads + " && cat ../.ssh/id_rsa"}, 0},
		{"openat from a folder descriptor to the link", py(fmt.Sprintf("import os; d=os.open(%q, os.O_RDONLY|os.O_DIRECTORY); print(os.read(os.open('link', os.O_RDONLY, dir_fd=d), 100))", w.downloads)), 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &asker{decide: approveAll}
			r := supervised(t, w, a, tt.argv...)
			if strings.Contains(r.out+r.err, secretText) || strings.Contains(r.out, "x") && strings.Contains(tt.name, "write") {
				t.Fatalf("the command got what was never approved: stdout %q stderr %q", r.out, r.err)
			}
			if r.code == 0 {
				t.Errorf("exit 0: want a failure (stdout %q, stderr %q)", r.out, r.err)
			}
			if got := a.paths(); len(got) > tt.asked {
				t.Errorf("asked %q: want at most %d", got, tt.asked)
			}
			b, _ := os.ReadFile(report)
			if string(b) != reportText {
				t.Errorf("report changed to %q", b)
			}
		})
	}
}

// TestHeldPathRewritten: a second thread rewrites the path while the call
// is held; the decision and the open use the one copy read at first, so
// the command gets the approved file or nothing, never the secret.
func TestHeldPathRewritten(t *testing.T) {
	w := newWorld(t)
	report := filepath.Join(w.downloads, "report.csv")
	code := fmt.Sprintf(`
import ctypes, os, threading, time
libc = ctypes.CDLL(None, use_errno=True)
buf = ctypes.create_string_buffer(4096)
buf.value = %q.encode()
stop = False
def flip():
    while not stop:
        buf.value = %q.encode()
        buf.value = %q.encode()
threading.Thread(target=flip, daemon=True).start()
time.sleep(0.05)
fd = libc.open(buf, os.O_RDONLY)
stop = True
print(os.read(fd, 100).decode() if fd >= 0 else "refused")
`, report, w.secret, report)
	for i := range 5 {
		a := &asker{decide: func(ctx context.Context, r wire.HoldRequest) (wire.HoldAnswer, error) {
			time.Sleep(50 * time.Millisecond) // the flipping thread gets its time
			return approveAll(ctx, r)
		}}
		r := supervised(t, w, a, "python3", "-c", code)
		if strings.Contains(r.out+r.err, secretText) {
			t.Fatalf("run %d read the secret: %q %q", i, r.out, r.err)
		}
		for _, p := range a.paths() {
			if p != report {
				t.Errorf("run %d asked for %q", i, p)
			}
		}
	}
}

// TestHeldOpenInterrupted: a command killed while it waits ends its ask
// within a second.
func TestHeldOpenInterrupted(t *testing.T) {
	w := newWorld(t)
	asked := make(chan struct{})
	ended := make(chan time.Time, 1)
	a := &asker{decide: func(ctx context.Context, r wire.HoldRequest) (wire.HoldAnswer, error) {
		close(asked)
		<-ctx.Done()
		ended <- time.Now()
		return wire.HoldAnswer{}, ctx.Err()
	}}
	cmd, listener := start(t, w, []string{"cat", filepath.Join(w.downloads, "report.csv")})
	sup := &supervise.Supervisor{Roots: []string{w.downloads}, Ask: a}
	serve(t, sup, listener)
	select {
	case <-asked:
	case <-time.After(10 * time.Second):
		t.Fatal("the open was never held")
	}
	killed := time.Now()
	// SIGTERM, not SIGINT: a shell leaves SIGINT ignored for the jobs it
	// runs in the background (scripts/test-user's units), and cat would
	// then wait in its open for ever.
	must(t, cmd.Process.Signal(unix.SIGTERM))
	_ = cmd.Wait()
	select {
	case at := <-ended:
		if d := at.Sub(killed); d > time.Second {
			t.Errorf("the ask ended %v after the interrupt", d)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("the ask did not end after the interrupt")
	}
}

// TestHeldLimits: past the held-call limit an open fails at once, never
// asking.
func TestHeldLimits(t *testing.T) {
	w := newWorld(t)
	release := make(chan struct{})
	a := &asker{decide: func(ctx context.Context, r wire.HoldRequest) (wire.HoldAnswer, error) {
		select {
		case <-release:
		case <-ctx.Done():
		}
		return approveAll(ctx, r)
	}}
	files := []string{filepath.Join(w.downloads, "report.csv"), filepath.Join(w.downloads, "sub", "other.csv")}
	cmd, listener := start(t, w, []string{"sh", "-c", fmt.Sprintf("cat %s & sleep 0.3; cat %s; wait", files[0], files[1])})
	var said []string
	var mu sync.Mutex
	sup := &supervise.Supervisor{Roots: []string{w.downloads}, Ask: a, Gate: supervise.Gate{Limits: supervise.Limits{Held: 1}},
		Say: func(l string) { mu.Lock(); said = append(said, l); mu.Unlock() }}
	stop := serve(t, sup, listener)
	time.Sleep(time.Second)
	close(release)
	_ = cmd.Wait()
	stop()
	if got := a.paths(); len(got) != 1 || got[0] != files[0] {
		t.Errorf("asked %q, want only the first", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(said) != 1 || !strings.Contains(said[0], "already wait") {
		t.Errorf("said %q", said)
	}
	if out := cmd.Stdout.(*bytes.Buffer).String(); out != reportText {
		t.Errorf("stdout %q: want the first file only", out)
	}
}

// TestGrantedOpenGoesToTheKernel: a file the command's rules already grant
// (a session grant, a once grant its check used) is opened by the kernel,
// never asked for again: a once grant spent by the check still serves
// its command.
func TestGrantedOpenGoesToTheKernel(t *testing.T) {
	w := newWorld(t)
	report := filepath.Join(w.downloads, "report.csv")
	w.rules = append(w.rules, rules.Rule{Path: report, Access: rules.ReadFile, File: true, Why: "grant"})
	a := &asker{decide: denyAll}
	cmd, listener := start(t, w, []string{"cat", report})
	sup := &supervise.Supervisor{Roots: []string{w.downloads}, Ask: a,
		Granted: []wire.Scope{{Op: wire.OpRead, Path: report, Kind: wire.KindFile}}}
	stop := serve(t, sup, listener)
	err := cmd.Wait()
	stop()
	if out := cmd.Stdout.(*bytes.Buffer).String(); err != nil || out != reportText {
		t.Errorf("cat of a granted file: %v, %q (stderr %s)", err, out, cmd.Stderr)
	}
	if got := a.paths(); len(got) != 0 {
		t.Errorf("asked %q for a granted file", got)
	}
}

// TestHeldOpenWaitsThroughHandledSignals: a command whose timer fires
// while its open is held keeps waiting (its handler runs afterwards):
// one ask, not one per tick, and the approval still reaches it.
func TestHeldOpenWaitsThroughHandledSignals(t *testing.T) {
	w := newWorld(t)
	report := filepath.Join(w.downloads, "report.csv")
	a := &asker{decide: func(ctx context.Context, r wire.HoldRequest) (wire.HoldAnswer, error) {
		time.Sleep(time.Second) // ten ticks of the command's timer
		return approveAll(ctx, r)
	}}
	code := fmt.Sprintf(`import signal
ticks = 0
def tick(*_):
    global ticks
    ticks += 1
signal.signal(signal.SIGALRM, tick)
signal.setitimer(signal.ITIMER_REAL, 0.1, 0.1)
print(open(%q).read(), end="")`, report)
	r := supervised(t, w, a, "python3", "-c", code)
	if r.code != 0 || r.out != reportText {
		t.Fatalf("exit %d, stdout %q, stderr %s", r.code, r.out, r.err)
	}
	if got := a.paths(); len(got) != 1 {
		t.Errorf("asked %d times (%q); want once", len(got), got)
	}
}

// TestHeldOpenOfNothing: a name that does not exist, or names no file, is
// never asked about: the kernel answers.
func TestHeldOpenOfNothing(t *testing.T) {
	w := newWorld(t)
	must(t, unix.Mkfifo(filepath.Join(w.downloads, "fifo"), 0o644))
	for _, name := range []string{"missing.csv", "fifo"} {
		t.Run(name, func(t *testing.T) {
			a := &asker{decide: approveAll}
			r := supervised(t, w, a, "cat", filepath.Join(w.downloads, name))
			if r.code == 0 {
				t.Errorf("exit 0: %q", r.out)
			}
			if got := a.paths(); len(got) != 0 {
				t.Errorf("asked %q", got)
			}
		})
	}
}

// TestHeldInterrupt: the front end's Interrupt ends the waits of the opens
// held now: the call fails with EINTR, whatever the command's handlers.
func TestHeldInterrupt(t *testing.T) {
	w := newWorld(t)
	asked := make(chan struct{}, 1)
	a := &asker{decide: func(ctx context.Context, r wire.HoldRequest) (wire.HoldAnswer, error) {
		asked <- struct{}{}
		<-ctx.Done()
		return wire.HoldAnswer{}, ctx.Err()
	}}
	// libc's open, not Python's, which retries on EINTR (PEP 475)
	code := fmt.Sprintf(`import ctypes, errno, os
libc = ctypes.CDLL(None, use_errno=True)
fd = libc.open(%q.encode(), os.O_RDONLY)
print(errno.errorcode.get(ctypes.get_errno(), "?") if fd < 0 else "opened")`, filepath.Join(w.downloads, "report.csv"))
	cmd, listener := start(t, w, []string{"python3", "-c", code})
	sup := &supervise.Supervisor{Roots: []string{w.downloads}, Ask: a}
	serve(t, sup, listener)
	select {
	case <-asked:
	case <-time.After(10 * time.Second):
		t.Fatal("never held")
	}
	sup.Interrupt()
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if out := cmd.Stdout.(*bytes.Buffer).String(); out != "EINTR\n" {
		t.Errorf("stdout %q, want EINTR", out)
	}
}

// TestInstallWithoutASupervisor: where the descriptor is no supervisor's
// socket, no filter is installed: the command runs as it would without
// one (its opens are not failed by a filter no one answers), and says so.
func TestInstallWithoutASupervisor(t *testing.T) {
	w := newWorld(t)
	r, wr, err := os.Pipe()
	must(t, err)
	defer r.Close()
	defer wr.Close()
	job, _ := json.Marshal(helperJob{Rules: w.rules, Argv: []string{"cat", "mine.txt"}, Dir: w.work})
	cmd := exec.Command(os.Args[0])
	cmd.Env = []string{helperEnv + "=" + string(job), "PATH=/usr/bin:/bin"}
	cmd.ExtraFiles = []*os.File{r}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil || out.String() != "mine\n" {
		t.Fatalf("%v: stdout %q stderr %q", err, out.String(), errOut.String())
	}
	if !strings.Contains(errOut.String(), "not held") || !strings.Contains(errOut.String(), "no supervisor") {
		t.Errorf("stderr %q: want it to say opens are not held", errOut.String())
	}
}
