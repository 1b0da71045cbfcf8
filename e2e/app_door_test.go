package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"pathgrant/tray"
)

// loaderVars stand for the class of variables that would load code into
// the app or mark who asked for it: none may reach it.
var loaderVars = []string{"LD_PRELOAD=/lib/x86_64-linux-gnu/libm.so.6", "GTK_MODULES=evil", "GIO_EXTRA_MODULES=/tmp"}

// environOf reads a process's environment as root with every capability
// dropped, as any process of the same user reads it.
func environOf(pid int) (string, error) {
	out, err := exec.Command("setpriv", "--bounding-set=-all", "--inh-caps=-all", "--ambient-caps=-all",
		"cat", "/proc/"+strconv.Itoa(pid)+"/environ").CombinedOutput()
	return string(out), err
}

// takeFD tries pidfd_getfd on pid's descriptor fd, with every
// capability dropped: the way a process of the same user would take the
// app's link.
func takeFD(pid, fd int) (string, error) {
	script := fmt.Sprintf(`import ctypes, os, errno, sys
libc = ctypes.CDLL(None, use_errno=True)
p = os.pidfd_open(%d)
r = libc.syscall(438, p, %d, 0)
if r < 0:
    print(errno.errorcode[ctypes.get_errno()]); sys.exit(1)
print("took", r)`, pid, fd)
	out, err := exec.Command("setpriv", "--bounding-set=-all", "--inh-caps=-all", "--ambient-caps=-all",
		"python3", "-c", script).CombinedOutput()
	return string(out), err
}

// TestAppDoor: becoming the app is a door. The app the daemon starts
// gets none of the loader variables of the daemon's environment or of
// whoever asked for it (`pathgrant app` from an agent's process), and no
// process of the same user can read the app or the daemon (their
// environment, their memory) or take a descriptor of theirs (the daemon's
// listener, the app's link): both are undumpable.
func TestAppDoor(t *testing.T) {
	d := startDesktop(t)
	e := newAppEnv(t)
	// No capabilities, as an ordinary user's daemon has none: root's
	// would let no capless process read it whatever the app does.
	daemon := exec.Command("setpriv", "--bounding-set=-all", "--inh-caps=-all", "--ambient-caps=-all", appBinary(t))
	daemon.Env = append(e.vars(d), append(loaderVars, "PATHGRANT_TEST_MARK=daemon")...)
	logf, err := os.Create(artifactDir(t) + "/app-door.log")
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	daemon.Stdout, daemon.Stderr = logf, logf
	startGroup(t, daemon)
	var first int
	waitUntil(t, 30*time.Second, "the daemon's app", func() bool { first = appPid(t, daemon); return first != 0 })
	assertCleanEnviron(t, first)
	// Linked and showing its window (no tray here: settings): undumpable
	// by now. (Before, it held only its bootstrap socket: boot.go.)
	d.output(t, "xdotool", "search", "--sync", "--onlyvisible", "--pid", strconv.Itoa(first), "--name", tray.SettingsTitle)
	// A process started the same way, capless, is readable: the reader
	// works, so what it cannot read below is the daemon's and the app's
	// doing.
	control := exec.Command("setpriv", "--bounding-set=-all", "--inh-caps=-all", "--ambient-caps=-all", "sleep", "60")
	startGroup(t, control)
	if out, err := environOf(control.Process.Pid); err != nil {
		t.Fatalf("a capless process's environment cannot be read (%v %q): the checks below prove nothing", err, out)
	}
	for _, p := range []struct {
		name string
		pid  int
	}{{"the daemon", daemon.Process.Pid}, {"the app", first}} {
		if out, err := environOf(p.pid); err == nil || !strings.Contains(out, "Permission denied") {
			t.Errorf("a process of the same user read %s's environment: %v %q", p.name, err, out)
		}
		for _, fd := range []int{3, 4, 5, 6} { // any descriptor: the daemon's listener, the app's link
			if out, err := takeFD(p.pid, fd); err == nil || !strings.Contains(out, "EPERM") {
				t.Errorf("a process of the same user took %s's descriptor %d: %v %q", p.name, fd, err, out)
			}
		}
	}

	// An agent's process asks for the app with its own loader variables.
	if err := syscall.Kill(first, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	asker := exec.Command(appBinary(t), "app")
	asker.Env = append(e.vars(d), append(loaderVars, "PATHGRANT_TEST_MARK=caller")...)
	if out, err := asker.CombinedOutput(); err != nil {
		t.Fatalf("pathgrant app: %v: %s", err, out)
	}
	var second int
	waitUntil(t, 20*time.Second, "the app started again", func() bool {
		second = appPid(t, daemon)
		return second != 0 && second != first
	})
	assertCleanEnviron(t, second)
}

// assertCleanEnviron reads pid's environment with root's capabilities and
// wants none of the loader variables and no mark of who started what.
func assertCleanEnviron(t *testing.T, pid int) {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		t.Fatalf("read the app's environment as root: %v", err)
	}
	env := strings.Split(string(b), "\x00")
	if len(env) < 3 {
		t.Fatalf("the app's environment is %q", env)
	}
	for _, kv := range env {
		for _, bad := range append(loaderVars, "PATHGRANT_TEST_MARK") {
			name, _, _ := strings.Cut(bad, "=")
			if strings.HasPrefix(kv, name+"=") {
				t.Errorf("the app's environment has %s", kv)
			}
		}
	}
}
