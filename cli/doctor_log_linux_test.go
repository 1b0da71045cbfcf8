package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"pathgrant/apiclient"
	"pathgrant/appdirs"
	"pathgrant/guard"
	"pathgrant/wire"
)

// serveHeadless runs the real `pathgrant serve --headless` on the
// fixture's socket, with the fixture's home and pathgrant's default
// folders below it (the store among them, which f.store then names), its
// stdout and stderr as given (nil is /dev/null, a non-file writer a pipe).
func (f *doctorFixture) serveHeadless(t *testing.T, stdout, stderr io.Writer) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := buildBinary(t)
	f.store = f.home + "/.local/state/pathgrant/pathgrant.db"
	cmd := exec.Command(bin, "serve", "--headless", "--socket", f.sock)
	cmd.Env = []string{"HOME=" + f.home, "PATH=/usr/bin:/bin", "LANG=en_US.UTF-8"}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	c := apiclient.New(f.sock)
	defer c.CloseIdle()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		select {
		case err := <-exited:
			t.Fatalf("the daemon exited: %v", err)
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		err := c.Health(ctx)
		cancel()
		if err == nil {
			return
		}
	}
	t.Fatalf("the daemon never answered on %s", f.sock)
}

// logFile creates a file for the daemon's output, its folder too.
func logFile(t *testing.T, path string) *os.File {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	return createFile(t, path)
}

// openTerminal is a pseudo-terminal's slave side, its master drained so
// that the daemon's writes never block.
func openTerminal(t *testing.T) *os.File {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals: %v", err)
	}
	t.Cleanup(func() { master.Close() })
	if err := unix.IoctlSetPointerInt(int(master.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(master.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	go func() { _, _ = io.Copy(io.Discard, master) }()
	slave, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { slave.Close() })
	return slave
}

// stderrTo points this test process's own stderr (the in-process
// daemon's) at file until the test ends.
func stderrTo(t *testing.T, file *os.File) {
	t.Helper()
	saved, err := unix.Dup(2)
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.Dup2(int(file.Fd()), 2); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = unix.Dup2(saved, 2)
		unix.Close(saved)
	})
}

// TestDoctorDaemonOutput: doctor finds the daemon serving the socket and
// says whether its log stays with the person. A headless daemon logs each
// approval code on stderr: a terminal, a pipe (the journal), /dev/null or
// a file in pathgrant's state or runtime folder is fine; a file anywhere
// else (the home folder, /tmp, one since deleted) fails with the fix.
func TestDoctorDaemonOutput(t *testing.T) {
	stateLog := "HOME/.local/state/pathgrant/headless.log"
	leak := []string{"approval codes this headless daemon logs", "can approve its own requests",
		"systemd-cat", "2>>" + stateLog, "then delete "}
	tests := []struct {
		name  string
		setup func(t *testing.T, f *doctorFixture, env *doctorEnv)
		code  int
		want  map[string]doctorLine
	}{
		{"headless, log in the home folder", func(t *testing.T, f *doctorFixture, _ *doctorEnv) {
			f.serveHeadless(t, nil, logFile(t, f.home+"/pathgrant.log"))
		}, 1, map[string]doctorLine{
			"daemon stderr": {doctorFail, append([]string{"HOME/pathgrant.log: a file outside pathgrant's protected folders"}, leak...)},
			"daemon stdout": {doctorOK, []string{"discarded (/dev/null)"}},
		}},
		{"headless, log in a project", func(t *testing.T, f *doctorFixture, _ *doctorEnv) {
			f.serveHeadless(t, nil, logFile(t, f.home+"/src/app/daemon.log"))
		}, 1, map[string]doctorLine{
			"daemon stderr": {doctorFail, append([]string{"HOME/src/app/daemon.log"}, leak...)},
		}},
		{"headless, log in /tmp", func(t *testing.T, f *doctorFixture, _ *doctorEnv) {
			f.serveHeadless(t, nil, logFile(t, f.root+"/daemon.log"))
		}, 1, map[string]doctorLine{
			"daemon stderr": {doctorFail, append([]string{"ROOT/daemon.log"}, leak...)},
		}},
		{"headless, log deleted while open", func(t *testing.T, f *doctorFixture, _ *doctorEnv) {
			log := logFile(t, f.home+"/gone.log")
			f.serveHeadless(t, nil, log)
			if err := os.Remove(log.Name()); err != nil {
				t.Fatal(err)
			}
		}, 1, map[string]doctorLine{
			"daemon stderr": {doctorFail, append([]string{"HOME/gone.log: "}, leak...)},
		}},
		{"headless, log and output in the home folder", func(t *testing.T, f *doctorFixture, _ *doctorEnv) {
			log := logFile(t, f.home+"/both.log")
			f.serveHeadless(t, log, log)
		}, 1, map[string]doctorLine{
			"daemon stderr": {doctorFail, append([]string{"HOME/both.log"}, leak...)},
			"daemon stdout": {doctorInfo, []string{"HOME/both.log", "prints nothing there"}},
		}},
		{"headless, log in the state folder", func(t *testing.T, f *doctorFixture, _ *doctorEnv) {
			f.serveHeadless(t, nil, logFile(t, f.home+"/.local/state/pathgrant/headless.log"))
		}, 0, map[string]doctorLine{
			"daemon stderr": {doctorOK, []string{stateLog + ", inside HOME/.local/state/pathgrant, which confined commands cannot see"}},
		}},
		{"headless, log in the runtime folder", func(t *testing.T, f *doctorFixture, _ *doctorEnv) {
			f.serveHeadless(t, nil, logFile(t, filepath.Dir(f.sock)+"/headless.log"))
		}, 0, map[string]doctorLine{
			"daemon stderr": {doctorOK, []string{"ROOT/run/headless.log, inside ROOT/run,"}},
		}},
		{"headless, log in the config folder", func(t *testing.T, f *doctorFixture, _ *doctorEnv) {
			f.serveHeadless(t, nil, logFile(t, f.home+"/.config/pathgrant/headless.log"))
		}, 0, map[string]doctorLine{
			"daemon stderr": {doctorOK, []string{"inside HOME/.config/pathgrant,"}},
		}},
		{"headless, log to a pipe", func(t *testing.T, f *doctorFixture, _ *doctorEnv) {
			f.serveHeadless(t, nil, &bytes.Buffer{})
		}, 0, map[string]doctorLine{
			"daemon stderr": {doctorOK, []string{"a pipe (pipe:["}},
		}},
		{"headless, log to a terminal", func(t *testing.T, f *doctorFixture, _ *doctorEnv) {
			f.serveHeadless(t, nil, openTerminal(t))
		}, 0, map[string]doctorLine{
			"daemon stderr": {doctorOK, []string{"a terminal or device (/dev/pts/"}},
		}},
		{"headless, log discarded", func(t *testing.T, f *doctorFixture, _ *doctorEnv) {
			f.serveHeadless(t, nil, nil)
		}, 0, map[string]doctorLine{
			"daemon stderr": {doctorOK, []string{"discarded (/dev/null)"}},
		}},
		{"not headless, log in the home folder", func(t *testing.T, f *doctorFixture, _ *doctorEnv) {
			stderrTo(t, logFile(t, f.home+"/app.log"))
			f.serve(t)
		}, 0, map[string]doctorLine{
			"daemon stderr": {doctorWarn, []string{"HOME/app.log: a file outside pathgrant's protected folders holds the daemon's log", "then delete HOME/app.log"}},
		}},
		{"daemon out of sight", func(t *testing.T, f *doctorFixture, env *doctorEnv) {
			f.serve(t)
			env.DaemonPeer = func(string) (int, int, error) { return 0, 0, nil }
		}, 0, map[string]doctorLine{
			"daemon stderr": {doctorInfo, []string{"not checked", "another PID namespace"}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newDoctorFixture(t)
			env := f.env()
			f.installHooks(t, "claude", f.hook)
			tt.setup(t, f, &env)
			f.check(t, env, tt.code, tt.want)
		})
	}
}

// TestDoctorSafeLogFolders: the folders doctor accepts a headless log in
// are the ones the real daemon's guard refuses an agent's Read of as
// protected and never offers for approval, and a confined command of the
// session (pathgrant exec, real bubblewrap) cannot read; everywhere else
// doctor calls unsafe the guard allows the read (a workspace), offers it
// (Downloads) or refuses it only for want of a root or grant that may
// later cover it.
func TestDoctorSafeLogFolders(t *testing.T) {
	f := newDoctorFixture(t)
	// a confined read under Downloads fails at once rather than waiting
	// for the person: this test is the folders, not holding
	writePolicy(t, f.home+"/.config/pathgrant/policy.toml", "hold_opens = false\n")
	f.serveHeadless(t, nil, nil)
	d, err := inspectDaemon(f.env(), f.sock)
	if err != nil {
		t.Fatal(err)
	}
	safe := safeLogFolders(d, f.sock)
	want := []string{f.home + "/.config/pathgrant", f.home + "/.local/state/pathgrant", f.root + "/run"}
	if fmt.Sprint(safe) != fmt.Sprint(want) {
		t.Errorf("safe folders %q, want %q", safe, want)
	}
	c := apiclient.New(f.sock)
	defer c.CloseIdle()
	ctx := context.Background()
	work := f.home + "/work"
	if err := os.MkdirAll(work, 0o700); err != nil {
		t.Fatal(err)
	}
	sess, err := c.Register(ctx, wire.SessionRequest{Agent: "doctor-test", Cwd: work, Workspace: []string{work}})
	if err != nil {
		t.Fatal(err)
	}
	c.Session, c.Token = sess.ID, sess.Token
	for _, p := range []string{
		f.home + "/.local/state/pathgrant/headless.log", f.home + "/.config/pathgrant/headless.log", f.root + "/run/headless.log",
		work + "/daemon.log", f.home + "/Downloads/headless.log", f.home + "/pathgrant.log", f.root + "/daemon.log",
	} {
		t.Run(p[len(f.root):], func(t *testing.T) {
			writeExecFile(t, p, logSecret+"\n")
			ans, err := c.Check(ctx, wire.CheckRequest{Tool: "Read", Op: "read", Path: p})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s %s eligible=%v pending=%q: %s", ans.Decision, ans.Rule, ans.Eligible, ans.Pending, ans.Reason)
			guarded := ans.Decision == "deny" && ans.Rule == "protected" && !ans.Eligible && ans.Pending == ""
			if inSafe := folderOf(safe, p) != ""; inSafe != guarded {
				t.Errorf("doctor calls it safe: %v; the guard's answer %s %s (eligible %v, pending %q): %s",
					inSafe, ans.Decision, ans.Rule, ans.Eligible, ans.Pending, ans.Reason)
			}
			switch out, err := confinedCat(t, f, sess, work, p); {
			case folderOf(safe, p) != "" && (err == nil || strings.Contains(out, logSecret)):
				t.Errorf("confined cat of a log doctor calls safe: %v, output %q; want it refused", err, out)
			case guard.Within(work, p) && (err != nil || !strings.Contains(out, logSecret)):
				t.Errorf("confined cat in the workspace: %v, output %q; want the file", err, out)
			}
		})
	}
}

// logSecret stands for an approval code in a log file.
const logSecret = "CODE7K3M"

// confinedCat runs `cat path` as the session's confined command.
func confinedCat(t *testing.T, f *doctorFixture, sess wire.SessionResponse, work, path string) (string, error) {
	t.Helper()
	requireFullConfinement(t)
	cmd := exec.Command(buildBinary(t), "exec", "--socket", f.sock, "--", "cat", path)
	cmd.Dir = work
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + f.home, "LANG=en_US.UTF-8",
		appdirs.SessionEnv + "=" + sess.ID, appdirs.TokenEnv + "=" + sess.Token}
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestServeHeadlessWarnsOfItsLog: a headless daemon whose stderr is a file
// outside pathgrant's protected folders says so in that log before it
// serves, with the fix; one logging into its state folder does not.
func TestServeHeadlessWarnsOfItsLog(t *testing.T) {
	tests := []struct {
		name, log string
		warns     bool
	}{
		{"log in the home folder", "/pathgrant.log", true},
		{"log in the state folder", "/.local/state/pathgrant/headless.log", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newDoctorFixture(t)
			log := logFile(t, f.home+tt.log)
			f.serveHeadless(t, nil, log)
			text := readFile(t, log.Name())
			warned := strings.Contains(text, "level=WARN") && strings.Contains(text, "holds the approval codes this headless daemon logs") &&
				strings.Contains(text, "fix=\"restart the daemon logging to")
			if warned != tt.warns {
				t.Errorf("warned %v, want %v; log:\n%s", warned, tt.warns, text)
			}
		})
	}
}
