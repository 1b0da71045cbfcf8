package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"pathgrant/apiclient"
	"pathgrant/appdirs"
	"pathgrant/engine"
	"pathgrant/grants"
	"pathgrant/sandbox"
	"pathgrant/sandbox/frontend"
	"pathgrant/wire"
)

// watcherScript is the attacker's watcher: started by a confined command
// and detached from it (a double fork; it tries setsid too), it polls
// /proc for the person's `pathgrant approve … --code C` (it is even told
// the pid, in decoy.pid) and would post the code first, with device scope
// and the whole folder, over pathgrant's socket. It writes what it got
// to its report: every /proc read that worked, the codes it saw, and
// why the socket, setsid and the listing of /proc failed.
const watcherScript = `import json, os, re, socket, sys, time
report, sock, seconds = sys.argv[1], open(sys.argv[2]).read().strip(), float(sys.argv[3])
got = {"pid": os.getpid(), "ppid": os.getppid(), "group": os.getpgrp(), "read": [], "codes": [], "posted": [], "errors": {}}
open("out/watcher.pid", "w").write(str(os.getpid()))
def err(key, f):
    try:
        f()
        got["errors"][key] = "ok"
    except OSError as e:
        got["errors"][key] = e.strerror
err("setsid", os.setsid)
err("socket", lambda: socket.socket(socket.AF_UNIX).connect(sock))
def post(rid, code):
    body = '{"scope":"device","kind":"folder","code":"%s"}' % code
    s = socket.socket(socket.AF_UNIX)
    s.connect(sock)
    s.sendall(("POST /v1/requests/%s/decision HTTP/1.0\r\nHost: pathgrant\r\nContent-Type: application/json\r\n"
               "Content-Length: %d\r\n\r\n%s" % (rid, len(body), body)).encode())
    got["posted"].append(s.recv(4096).decode("latin-1").split("\r\n")[0])
err("list /proc", lambda: os.listdir("/proc"))
end = time.time() + seconds
while time.time() < end:
    pids = ["1", str(os.getppid())]
    try:
        pids.append(open("out/decoy.pid").read().strip())
    except OSError:
        pass
    for pid in pids:
        for path in ("/proc/%s/cmdline" % pid, "/proc/%s/environ" % pid, "/proc/self/root/proc/%s/cmdline" % pid):
            try:
                data = open(path, "rb").read()
            except OSError as e:
                got["errors"][path.replace(pid, "PID")] = e.strerror
                continue
            got["read"].append(path)
            for rid, code in re.findall(r"approve\x00([^\x00]+)\x00.*--code\x00([^\x00]+)", data.decode("latin-1")):
                got["codes"].append(code)
                if not got["posted"]:
                    err("post", lambda: post(rid, code))
    time.sleep(0.05)
got["ppid_after"] = os.getppid()
json.dump(got, open(report + ".tmp", "w"))
os.rename(report + ".tmp", report)
`

// watcherReport is what the watcher wrote.
type watcherReport struct {
	PID       int               `json:"pid"`
	PPID      int               `json:"ppid"`
	Group     int               `json:"group"`
	Read      []string          `json:"read"`
	Codes     []string          `json:"codes"`
	Posted    []string          `json:"posted"`
	Errors    map[string]string `json:"errors"`
	PPIDAfter int               `json:"ppid_after"`
}

// requireLandlock skips unless Landlock can confine here (with
// bubblewrap or not: the test forces the Landlock-only level).
func requireLandlock(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary and runs commands confined")
	}
	if c := sandbox.Probe(); c.Level != sandbox.LevelFull && c.Level != sandbox.LevelLandlock {
		t.Skipf("no Landlock here (%q): %v", c.Level, c.Gaps)
	}
}

// landlockOnly is this machine's confinement as the daemon sees it with
// no bubblewrap on its PATH.
func landlockOnly(t *testing.T) sandbox.Confinement {
	t.Helper()
	facts := sandbox.ProbeFacts()
	facts.Bwrap, facts.UserNS = "", false
	c := sandbox.Assess(facts)
	if c.Level != sandbox.LevelLandlock {
		t.Fatalf("without bubblewrap the level is %q, want %q", c.Level, sandbox.LevelLandlock)
	}
	return c
}

// TestLandlockOnlyWatcher: at the Landlock-only level (no bubblewrap on
// the daemon's PATH), a hook-only session's confined command detaches a
// watcher that races the person's approval. The watcher reads no other
// process's /proc (not the person's `pathgrant approve … --code C`, even
// told its pid; not through /proc/self/root), cannot make a Unix socket
// to reach pathgrant's, cannot leave its process group, and the daemon
// counts it as the session's agent although its lineage no longer holds
// the agent. The command inherited no socket it could pass on. The
// person's "once, this file" is then granted as chosen, and nothing wider
// exists.
func TestLandlockOnlyWatcher(t *testing.T) {
	requireLandlock(t)
	w := newDoorWalkAt(t, landlockOnly(t))
	writeExecFile(t, w.work+"/watcher.py", watcherScript)
	id := w.pending(t, w.sess, "other.csv")
	code := w.person.Code(t, id)

	// the person's approval, the code on its command line as the log line
	// once handed it over
	decoy := exec.Command("bash", "-c", "sleep 20; :", "pathgrant", "approve", id, "--scope", "once", "--code", code)
	decoy.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // ended whole, its sleep too
	if err := decoy.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { syscall.Kill(-decoy.Process.Pid, syscall.SIGKILL); decoy.Wait() }()
	writeExecFile(t, w.work+"/out/decoy.pid", strconv.Itoa(decoy.Process.Pid)) // at this level nothing is created at the workspace's top
	writeExecFile(t, w.work+"/sock.txt", w.sock)

	// the command stays while its watcher works, as an agent's long
	// command does (its front end, and the supervisor of its held opens,
	// still there); the watcher outlives it
	script := "ls -l /proc/$$/fd > out/fds.txt; ( /usr/bin/python3 ./watcher.py out/watcher.json sock.txt 2 >out/watcher.err 2>&1 & ) ; echo " + started + "; sleep 3"
	agent := w.hookInOwnGroup(t, w.script(t, script))
	var said bytes.Buffer
	agent.Stdout, agent.Stderr = &said, &said
	if err := agent.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { syscall.Kill(-agent.Process.Pid, syscall.SIGKILL); agent.Wait() }()
	watcher := waitWatcher(t, w.work+"/out/watcher.pid")
	t.Run("the daemon counts the watcher as the agent's", func(t *testing.T) {
		_, p, _, err := engine.ProcInfo(int32(watcher))
		if err != nil {
			t.Fatalf("the watcher is gone: %v", err)
		}
		why, session := w.srv.Engine().JudgeCaller(engine.PeerLineage(p.PID, p.Start))
		if !strings.Contains(why, "process group of a confined command") || session != "door-walk-claude" {
			t.Errorf("JudgeCaller(watcher) = %q (%s); want an agent of session door-walk-claude by its process group", why, session)
		}
	})
	rep := readWatcherReport(t, w.work+"/out/watcher.json")
	if err := agent.Wait(); err != nil || !strings.Contains(said.String(), started) || !strings.Contains(said.String(), frontend.LandlockOnly) {
		t.Fatalf("the hook door did not run the command at the Landlock-only level (%v):\n%s", err, said.String())
	}
	t.Run("the watcher was detached", func(t *testing.T) {
		if rep.PPIDAfter == rep.PPID && rep.PPID != 1 {
			t.Errorf("the watcher's parent stayed %d: it was not detached", rep.PPID)
		}
	})
	t.Run("the watcher got nothing", func(t *testing.T) {
		if len(rep.Read) > 0 || len(rep.Codes) > 0 || len(rep.Posted) > 0 {
			t.Errorf("the watcher read %v, saw codes %v and posted %v", rep.Read, rep.Codes, rep.Posted)
		}
		for key, want := range map[string]string{"setsid": "Operation not permitted", "socket": "Permission denied",
			"list /proc": "Permission denied", "/proc/PID/cmdline": "Permission denied",
			"/proc/self/root/proc/PID/cmdline": "Permission denied"} {
			if rep.Errors[key] != want {
				t.Errorf("the watcher's %s: %q, want %q (%v)", key, rep.Errors[key], want, rep.Errors)
			}
		}
	})
	t.Run("the command inherited no socket", func(t *testing.T) {
		fds, err := os.ReadFile(w.work + "/out/fds.txt")
		if err != nil || !strings.Contains(string(fds), "pipe:") || strings.Contains(string(fds), "socket:") {
			t.Errorf("the command's descriptors (%v), want its pipes and no socket to pass on:\n%s", err, fds)
		}
	})
	t.Run("the person's choice holds, nothing wider", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		c := apiclient.New(w.sock)
		defer c.CloseIdle()
		if _, err := c.Decide(ctx, id, wire.Decision{Scope: "once", Code: code}); err != nil {
			t.Fatalf("the person's approval: %v", err)
		}
		gs, err := c.Grants(ctx, "", true)
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range gs {
			if strings.HasPrefix(g.Path, w.dl) && (g.Scope == grants.ScopeDevice || g.Path == w.dl) {
				t.Errorf("a grant wider than the person's choice: %+v", g)
			}
		}
	})
}

// hookInOwnGroup asks Claude's hook about the shell command script and
// returns the command it rewrote, to be run as an agent client runs it,
// in a process group of its own (as Codex runs each tool call, and a
// terminal each job): the group the daemon records is then the agent's,
// not this test's, which also acts as the person.
func (w *doorWalk) hookInOwnGroup(t *testing.T, script string) *exec.Cmd {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "hooks", "testdata", hookFixtures["claude"]))
	if err != nil {
		t.Fatal(err)
	}
	var fields map[string]any
	if err := json.Unmarshal(data, &fields); err != nil {
		t.Fatal(err)
	}
	fields["cwd"], fields["session_id"], fields["tool_input"] = w.work, "door-walk-claude", map[string]any{"command": script}
	call, err := json.Marshal(fields)
	if err != nil {
		t.Fatal(err)
	}
	hook := exec.Command(filepath.Join(filepath.Dir(w.bin), "pathgrant-hook"), "claude")
	hook.Stdin, hook.Dir = bytes.NewReader(call), w.work
	hook.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + w.home, appdirs.SocketEnv + "=" + w.sock}
	r := runCmd(t, hook)
	rewritten := findRewrite(r.stdout)
	if rewritten == "" {
		t.Fatalf("the hook did not rewrite: %s%s", r.stdout, r.stderr)
	}
	cmd := exec.Command("bash", "-c", rewritten)
	cmd.Dir, cmd.Env = w.work, []string{"PATH=/usr/bin:/bin", "HOME=" + w.home, "TMPDIR=" + w.tmp}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd
}

// waitWatcher is the watcher's pid once it wrote it.
func waitWatcher(t *testing.T, path string) int {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if data, err := os.ReadFile(path); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(data))); err == nil {
				return pid
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	errs, _ := os.ReadFile(filepath.Join(filepath.Dir(path), "watcher.err"))
	t.Fatalf("the watcher did not start:\n%s", errs)
	return 0
}

// readWatcherReport waits for the watcher's report.
func readWatcherReport(t *testing.T, path string) watcherReport {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		if data, err := os.ReadFile(path); err == nil {
			var rep watcherReport
			if err := json.Unmarshal(data, &rep); err != nil {
				t.Fatalf("watcher report: %v\n%s", err, data)
			}
			return rep
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("the watcher wrote no report")
	return watcherReport{}
}
