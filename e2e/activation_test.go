package e2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// The tests of this file run pathgrant as systemd runs it from the user
// units: the socket held by a supervisor, the daemon started at the first
// connection and handed the listener (LISTEN_FDS), and restarted with the
// same listener when it dies, so a call made meanwhile waits in the
// socket's backlog. CI has no systemd user manager: systemd-socket-activate
// (systemd's own tool) or the test's supervisor stand in for it.

// workspaceReadAnswer is the Claude Code hook's answer to a read in the
// workspace, given by the daemon: no decision of its own, the client's
// flow goes on. A hook that reaches no daemon denies instead.
const workspaceReadAnswer = "{}\n"

// activationEnv is a clean user: a home with a workspace, the XDG folders
// in the test's own, the binaries built as scripts/run builds them.
type activationEnv struct {
	root, home, runtime, bin string
}

var (
	activationOnce sync.Once
	activationBin  string
	activationErr  error
)

// activationBinaries builds pathgrant, pathgrant-hook and
// pathgrant-confine once, static, as scripts/run does, and returns their
// folder.
func activationBinaries(t *testing.T) string {
	t.Helper()
	activationOnce.Do(func() {
		dir, err := os.MkdirTemp("", "pathgrant-e2e-activation-")
		if err != nil {
			activationErr = err
			return
		}
		activationBin = dir
		cmd := exec.Command(goTool(), "build", "-o", dir+"/", "pathgrant", "pathgrant/cmd/pathgrant-hook", "pathgrant/cmd/pathgrant-confine")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			activationErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if activationErr != nil {
		t.Fatal(activationErr)
	}
	return activationBin
}

func newActivationEnv(t *testing.T) activationEnv {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	e := activationEnv{root: root, home: root + "/home", runtime: root + "/run", bin: activationBinaries(t)}
	agentsWrite(t, e.home+"/work/main.go", []byte("package main\n"))
	if err := os.Mkdir(e.runtime, 0o700); err != nil {
		t.Fatal(err)
	}
	return e
}

// vars is the person's login environment: no pathgrant variable, no
// session bus (so no systemd user manager answers), the runtime folder.
func (e activationEnv) vars() []string {
	return []string{"HOME=" + e.home, "PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8", "USER=" + os.Getenv("USER"),
		"XDG_RUNTIME_DIR=" + e.runtime, "TMPDIR=" + os.TempDir()}
}

func (e activationEnv) socket() string { return e.runtime + "/pathgrant.sock" }

// hookInput is the Claude Code hook's input for a Read of main.go in the
// workspace, the recorded fixture with its neutral home rewritten.
func (e activationEnv) hookInput(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile("../hooks/testdata/claude-pretooluse-read-workspace.json")
	if err != nil {
		t.Fatal(err)
	}
	return bytes.ReplaceAll(data, []byte("/home/user"), []byte(e.home))
}

// hook runs the hook command as Claude Code runs it (sh -c, the input on
// stdin) and returns its stdout.
func (e activationEnv) hook(t *testing.T, command string) string {
	t.Helper()
	cmd := exec.Command("sh", "-c", command)
	cmd.Env, cmd.Stdin = e.vars(), bytes.NewReader(e.hookInput(t))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Logf("hook: %v: %s", err, stderr.String())
	}
	return string(out)
}

// TestActivationFirstCall: systemd-socket-activate holds the socket as the
// socket unit does, and the first hook call starts the daemon, which is
// handed the socket and answers that very call.
func TestActivationFirstCall(t *testing.T) {
	activate, err := exec.LookPath("systemd-socket-activate")
	if err != nil {
		t.Skip("systemd-socket-activate is not installed (CI has it: package systemd)")
	}
	e := newActivationEnv(t)
	sock, store := e.socket(), e.root+"/state/pathgrant.db"
	// -E: the variables it passes on (it passes only HOME, PATH and TERM).
	cmd := exec.Command(activate, "-l", sock,
		"-E", "XDG_RUNTIME_DIR", "-E", "LANG",
		e.bin+"/pathgrant", "serve", "--headless", "--socket", sock, "--store", store)
	cmd.Env = e.vars()
	logf := artifactFile(t, "activate.log")
	cmd.Stdout, cmd.Stderr = logf, logf
	startSupervised(t, cmd)
	waitUntil(t, 10*time.Second, "the supervisor's socket", func() bool { _, err := os.Stat(sock); return err == nil })
	// The unit's SocketMode=0600: systemd-socket-activate has no such
	// option (and a socket others may reach is refused by the daemon).
	if err := os.Chmod(sock, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(store); err == nil {
		t.Fatal("the daemon ran before any call")
	}
	if got := e.hook(t, e.bin+"/pathgrant-hook claude"); got != workspaceReadAnswer {
		t.Fatalf("the first call was answered %q, want %q (log %s)", got, workspaceReadAnswer, readArtifact(logf))
	}
	if _, err := os.Stat(store); err != nil {
		t.Errorf("the daemon that answered opened no store: %v", err)
	}
}

// TestActivationRestartKeepsTheCall: the daemon killed with SIGKILL, a
// hook connects while nobody accepts; the supervisor, holding the
// listening socket, restarts the daemon with it after a delay (as systemd
// does with Restart=on-failure), and the waiting call is answered by the
// restarted daemon.
func TestActivationRestartKeepsTheCall(t *testing.T) {
	e := newActivationEnv(t)
	sock := e.socket()
	argv := []string{e.bin + "/pathgrant", "serve", "--headless", "--socket", sock, "--store", e.root + "/state/pathgrant.db"}
	s := startSupervisor(t, sock, 64, argv, e.vars(), 700*time.Millisecond)
	hook := e.bin + "/pathgrant-hook claude"
	if got := e.hook(t, hook); got != workspaceReadAnswer {
		t.Fatalf("first call answered %q, want %q\n%s", got, workspaceReadAnswer, s.log())
	}
	s.killAll()
	start := time.Now()
	got := e.hook(t, hook)
	waited := time.Since(start)
	if got != workspaceReadAnswer {
		t.Fatalf("the call made while the daemon was down was answered %q, want %q\n%s", got, workspaceReadAnswer, s.log())
	}
	if n := s.started(); n != 2 {
		t.Errorf("the daemon was started %d times, want 2 (once, then once after the kill)", n)
	}
	if waited < 500*time.Millisecond {
		t.Errorf("the call was answered in %v, before the restart: it did not wait in the backlog", waited)
	}
}

// TestQuickStartAlwaysOn is the README's quick start as a newcomer runs
// it, in a fresh home: build, `pathgrant install-desktop`, `pathgrant
// install-hooks claude`. With no systemd user manager (CI), the units
// install-desktop wrote are read back and played as systemd would (the
// socket's ListenStream, SocketMode and Backlog, the service's ExecStart,
// Restart and RestartSec): then everything pathgrant runs is killed, and
// one agent call (the installed hook, as Claude Code calls it) brings the
// daemon back and is answered.
func TestQuickStartAlwaysOn(t *testing.T) {
	e := newActivationEnv(t)
	pathgrant := e.bin + "/pathgrant"
	out := e.run(t, pathgrant, "install-desktop")
	if !strings.Contains(out, "no systemd user manager answers") {
		t.Fatalf("install-desktop said %q, want the line saying no user manager answers", out)
	}
	e.run(t, pathgrant, "install-hooks", "claude")
	hook := claudeHookCommand(t, e.home+"/.claude/settings.json")

	units := filepath.Join(e.home, ".config", "systemd", "user")
	socketUnit, serviceUnit := readUnit(t, units+"/pathgrant.socket"), readUnit(t, units+"/pathgrant.service")
	listen := strings.ReplaceAll(socketUnit["ListenStream"], "%t", e.runtime)
	if listen != e.socket() || socketUnit["SocketMode"] != "0600" {
		t.Fatalf("socket unit listens on %q mode %q, want %s 0600", listen, socketUnit["SocketMode"], e.socket())
	}
	backlog, err := strconv.Atoi(socketUnit["Backlog"])
	if err != nil {
		t.Fatalf("socket unit Backlog %q: %v", socketUnit["Backlog"], err)
	}
	argv := execStart(t, serviceUnit["ExecStart"])
	if argv[0] != pathgrant {
		t.Fatalf("ExecStart runs %q, want the installed binary %s", argv[0], pathgrant)
	}
	restartSec, err := time.ParseDuration(serviceUnit["RestartSec"] + "s")
	if err != nil || serviceUnit["Restart"] != "on-failure" {
		t.Fatalf("service unit Restart=%q RestartSec=%q: %v", serviceUnit["Restart"], serviceUnit["RestartSec"], err)
	}
	s := startSupervisor(t, listen, backlog, argv, e.vars(), restartSec)

	if got := e.hook(t, hook); got != workspaceReadAnswer {
		t.Fatalf("the first call after install was answered %q, want %q\n%s", got, workspaceReadAnswer, s.log())
	}
	s.killAll()
	if got := e.hook(t, hook); got != workspaceReadAnswer {
		t.Fatalf("the call after killing pathgrant was answered %q, want %q\n%s", got, workspaceReadAnswer, s.log())
	}
	if n := s.started(); n != 2 {
		t.Errorf("the daemon was started %d times, want 2", n)
	}
}

// run runs a pathgrant command as the person does and returns its stdout.
func (e activationEnv) run(t *testing.T, argv ...string) string {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env, cmd.Dir = e.vars(), e.home+"/work"
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s%s", strings.Join(argv, " "), err, out, stderr.String())
	}
	return string(out)
}

// claudeHookCommand is the PreToolUse hook command install-hooks wrote.
func claudeHookCommand(t *testing.T, settings string) string {
	t.Helper()
	data, err := os.ReadFile(settings)
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Hooks map[string][]struct {
			Hooks []struct{ Command string } `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatalf("%s: %v", settings, err)
	}
	for _, m := range s.Hooks["PreToolUse"] {
		for _, h := range m.Hooks {
			if strings.Contains(h.Command, "pathgrant") {
				return h.Command
			}
		}
	}
	t.Fatalf("%s has no pathgrant PreToolUse hook:\n%s", settings, data)
	return ""
}

// readUnit reads a unit file's settings (the last of a key wins).
func readUnit(t *testing.T, path string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	kv := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok && !strings.HasPrefix(line, "#") {
			kv[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	return kv
}

// execStart splits ExecStart as systemd does for what install-desktop
// writes: a first word maybe double-quoted, %% for %, then plain words.
func execStart(t *testing.T, line string) []string {
	t.Helper()
	var exe, rest string
	if strings.HasPrefix(line, `"`) {
		end := strings.Index(line[1:], `"`)
		if end < 0 {
			t.Fatalf("ExecStart %q: unterminated quote", line)
		}
		exe, rest = line[1:end+1], line[end+2:]
	} else {
		exe, rest, _ = strings.Cut(line, " ")
	}
	return append([]string{strings.ReplaceAll(exe, "%%", "%")}, strings.Fields(rest)...)
}

// supervisor holds a listening socket as systemd's socket unit does and
// starts the daemon, handed the listener as descriptor 3 with LISTEN_FDS=1
// and LISTEN_PID its own pid, when a connection waits; when the daemon
// dies it waits the restart delay and starts it again at the next
// connection, with the same listener, so a call waits in the backlog.
type supervisor struct {
	t                *testing.T
	file             *os.File
	argv, env        []string
	delay            time.Duration
	mu               sync.Mutex
	cur              *exec.Cmd
	exited           chan struct{}
	starts           int
	logs             bytes.Buffer
	stopped, stopRun chan struct{}
}

func startSupervisor(t *testing.T, sock string, backlog int, argv, env []string, delay time.Duration) *supervisor {
	t.Helper()
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	ul := ln.(*net.UnixListener)
	ul.SetUnlinkOnClose(false)
	if err := os.Chmod(sock, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := ul.File()
	if err != nil {
		t.Fatal(err)
	}
	ul.Close()
	if err := syscall.Listen(int(f.Fd()), backlog); err != nil {
		t.Fatal(err)
	}
	s := &supervisor{t: t, file: f, argv: argv, env: env, delay: delay, stopped: make(chan struct{}), stopRun: make(chan struct{})}
	go s.loop()
	t.Cleanup(s.stop)
	return s
}

func (s *supervisor) loop() {
	defer close(s.stopped)
	for {
		if !s.waitConnection() {
			return
		}
		cmd := exec.Command("sh", append([]string{"-c", `LISTEN_PID=$$ exec "$@"`, "sh"}, s.argv...)...)
		cmd.Env = append(append([]string{}, s.env...), "LISTEN_FDS=1")
		cmd.ExtraFiles = []*os.File{s.file}
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		s.mu.Lock()
		cmd.Stdout, cmd.Stderr = &lockedWriter{mu: &s.mu, w: &s.logs}, &lockedWriter{mu: &s.mu, w: &s.logs}
		err := cmd.Start()
		exited := make(chan struct{})
		if err == nil {
			s.cur, s.exited = cmd, exited
			s.starts++
		}
		s.mu.Unlock()
		if err != nil {
			s.t.Errorf("start the daemon: %v", err)
			return
		}
		err = cmd.Wait()
		close(exited)
		select {
		case <-s.stopRun:
			return
		default:
		}
		if err != nil { // Restart=on-failure, after RestartSec
			time.Sleep(s.delay)
		}
	}
}

// waitConnection waits until a connection is pending on the socket; false
// when the supervisor stops.
func (s *supervisor) waitConnection() bool {
	for {
		select {
		case <-s.stopRun:
			return false
		default:
		}
		fds := []unix.PollFd{{Fd: int32(s.file.Fd()), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, 100)
		if err != nil && !errors.Is(err, syscall.EINTR) {
			s.t.Errorf("poll the socket: %v", err)
			return false
		}
		if n > 0 {
			return true
		}
	}
}

// killAll kills everything the daemon runs (its process group) with
// SIGKILL and waits until it is gone.
func (s *supervisor) killAll() {
	s.mu.Lock()
	cmd, exited := s.cur, s.exited
	s.mu.Unlock()
	if cmd == nil {
		s.t.Fatal("no daemon to kill")
	}
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
		s.t.Fatal(err)
	}
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		s.t.Fatal("the killed daemon did not exit")
	}
}

func (s *supervisor) started() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.starts
}

func (s *supervisor) log() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.logs.String()
}

// stop stops the supervisor and the daemon (SIGTERM, then SIGKILL).
func (s *supervisor) stop() {
	close(s.stopRun)
	s.mu.Lock()
	cmd, exited := s.cur, s.exited
	s.mu.Unlock()
	if cmd != nil {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		}
	}
	<-s.stopped
	s.file.Close()
}

type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// startSupervised starts cmd in a process group of its own, stopped with
// the test (SIGTERM, then SIGKILL).
func startSupervised(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
	})
}

// artifactFile is a file in the test's artifact folder, closed with it.
func artifactFile(t *testing.T, name string) *os.File {
	t.Helper()
	f, err := os.Create(filepath.Join(artifactDir(t), name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func readArtifact(f *os.File) string {
	data, _ := os.ReadFile(f.Name())
	return string(data)
}

// goTool is the go command of the toolchain running the tests.
func goTool() string {
	if p := filepath.Join(runtime.GOROOT(), "bin", "go"); fileExists(p) {
		return p
	}
	return "go"
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }
