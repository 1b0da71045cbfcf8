//go:build linux

package heldfs_test

// Attack: a process of the person's outside every sandbox (the unconfined
// agent, same uid as the daemon) joins a running sandbox's PID namespace
// with setns (nsenter -t PID -p: the sandbox's user namespace is the
// person's own) and reads through the mount at <mount>/<token>/0, the
// token read from the sandbox's /proc/PID/mountinfo, either from a
// namespace the sandbox already used (remembered by the server) or as an
// orphan reparented to bubblewrap's inner init (which the walk up finds
// below bubblewrap). Both stay in the person's mount namespace, not the
// sandbox's, and are refused. (One that joins the mount namespace too is,
// to the kernel, inside the sandbox, as a ptrace of it would be: the doc
// of members says so.)

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// runningSandbox starts script in a bubblewrap sandbox like w.sandbox,
// and returns the host pid of its PID namespace's init (bwrap --info-fd).
func runningSandbox(t *testing.T, w *world, script string) int {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	r, wr, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"--info-fd", "3", "--dev-bind", "/", "/", "--unshare-pid", "--die-with-parent", "--proc", "/proc",
		"--ro-bind", filepath.Join(w.srv.Dir(), w.token, "0"), w.root, "bash", "-c", script}
	if os.Geteuid() != 0 {
		args = append([]string{"--unshare-user"}, args...)
	}
	cmd := exec.CommandContext(ctx, "bwrap", args...)
	cmd.ExtraFiles = []*os.File{wr}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	wr.Close()
	t.Cleanup(func() { cancel(); _ = cmd.Wait() })
	var info struct {
		Child int `json:"child-pid"`
	}
	if err := json.NewDecoder(bufio.NewReader(r)).Decode(&info); err != nil || info.Child == 0 {
		t.Fatalf("bwrap info: %v", err)
	}
	r.Close()
	return info.Child
}

// tokenFromMountinfo is what an outsider learns from the sandbox's
// mountinfo: the FUSE bind's root inside the file system, /TOKEN/0.
func tokenFromMountinfo(t *testing.T, pid int) string {
	t.Helper()
	data, err := os.ReadFile("/proc/" + itoa(pid) + "/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if !strings.Contains(line, " - fuse.pathgrant ") {
			continue
		}
		f := strings.Fields(line)
		if parts := strings.Split(strings.TrimPrefix(f[3], "/"), "/"); len(parts) == 2 {
			return parts[0]
		}
	}
	t.Fatalf("no pathgrant mount in %d's mountinfo", pid)
	return ""
}

// nsenterArgs joins pid's PID namespace; as a user, through its user
// namespace first, which the user owns (setns into a PID namespace wants
// CAP_SYS_ADMIN in the caller's user namespace too).
func nsenterArgs(pid int, rest ...string) []string {
	args := []string{"-t", itoa(pid)}
	if os.Geteuid() != 0 {
		args = append(args, "-U", "--preserve-credentials")
	}
	return append(append(args, "-p", "--"), rest...)
}

func itoa(n int) string { return strconv.Itoa(n) }

// sleeping waits until the script in the sandbox whose init is pid got to
// its last step, exec sleep (the init's child is then sleep: what the
// script did before, a cd, an open, a stat, is done), and returns that
// child's pid. A fixed pause instead was too short on a loaded machine.
func sleeping(t *testing.T, pid int) string {
	t.Helper()
	children := "/proc/" + itoa(pid) + "/task/" + itoa(pid) + "/children"
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		kids, _ := os.ReadFile(children)
		for _, k := range strings.Fields(string(kids)) {
			if comm, _ := os.ReadFile("/proc/" + k + "/comm"); strings.TrimSpace(string(comm)) == "sleep" {
				return k
			}
		}
	}
	t.Fatalf("the sandbox's script never got to its exec sleep")
	return ""
}

func waitFor(path string) ([]byte, error) {
	var data []byte
	var err error
	for range 100 {
		if data, err = os.ReadFile(path); err == nil && len(data) > 0 {
			return data, nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return data, err
}

// TestAttackNsenterCached: the sandbox used the mount once; an outsider
// that joined its PID namespace is admitted from the cache.
func TestAttackNsenterCached(t *testing.T) {
	w := newWorld(t, allow)
	write(t, filepath.Join(w.root, "report.csv"), "a,b\n")
	write(t, filepath.Join(w.root, "secret-name-only.txt"), "never opened")
	pid := runningSandbox(t, w, "stat "+w.root+" >/dev/null; exec sleep 30")
	sleeping(t, pid) // the sandbox's stat admitted its namespace
	token := tokenFromMountinfo(t, pid)
	through := filepath.Join(w.srv.Dir(), token, "0")
	before := len(w.ask.got())
	out, err := exec.Command("nsenter", nsenterArgs(pid, "sh", "-c",
		"stat -c '%n %s' "+through+"/secret-name-only.txt; cat "+through+"/report.csv; ls "+through)...).CombinedOutput()
	t.Logf("outsider in the sandbox's PID namespace: err %v\n%s", err, out)
	if strings.Contains(string(out), "secret-name-only.txt 12") {
		t.Errorf("an outsider read metadata through the mount (no request)")
	}
	if strings.Contains(string(out), "a,b") {
		t.Errorf("an outsider read a served file through the mount; requests it raised in the command's name: %q", w.ask.got()[before:])
	}
}

// TestAttackNsenterReparented: the sandbox never touched the mount; an
// outsider's process in its PID namespace, orphaned to bubblewrap's inner
// init, passes the walk.
func TestAttackNsenterReparented(t *testing.T) {
	w := newWorld(t, allow)
	write(t, filepath.Join(w.root, "report.csv"), "a,b\n")
	pid := runningSandbox(t, w, "exec sleep 30")
	sleeping(t, pid)
	token := tokenFromMountinfo(t, pid)
	through := filepath.Join(w.srv.Dir(), token, "0")
	outFile := filepath.Join(t.TempDir(), "stolen")
	if err := os.Chmod(filepath.Dir(outFile), 0o777); err != nil {
		t.Fatal(err)
	}
	err := exec.Command("nsenter", nsenterArgs(pid, "sh", "-c",
		"(sleep 0.5; cat "+through+"/report.csv > "+outFile+" 2>&1) >/dev/null 2>&1 &")...).Run()
	if err != nil {
		t.Fatalf("nsenter: %v", err)
	}
	data, _ := waitFor(outFile)
	t.Logf("orphaned outsider's cat: %q; asked %q", data, w.ask.got())
	if strings.Contains(string(data), "a,b") {
		t.Errorf("an outsider's orphan in the sandbox's PID namespace read a served file (asked in the command's name: %q)", w.ask.got())
	}
}
