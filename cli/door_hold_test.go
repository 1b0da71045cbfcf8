package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"pathgrant/engine"
	"pathgrant/grants"
	"pathgrant/ipc"
	"pathgrant/sandbox"
	"pathgrant/tools"
	"pathgrant/wire"
)

// readScript is the workspace script every held case runs: it counts its
// runs in a workspace file, then reads a file by its absolute path. A
// command held in that open and approved goes on from there: it must
// have run exactly once.
const readScript = `import sys
with open(sys.argv[2], "a") as f:
    f.write("run\n")
print(open(sys.argv[1]).read(), end="")
`

// heldCase is one way a held open ends: what the person does, from the
// headless CLI with the request's code, and what the command must show.
type heldCase struct {
	name   string
	decide []string // the CLI's arguments after the request id; nil: nobody decides
	// script is the shell text run through the door, given the file to
	// read (absolute), and the runs file
	script func(file, runs string) string
	// asked is the path the request names (the file, or its folder)
	asked  func(file string) string
	ran    bool // the command exits 0 and prints the file
	refuse bool // one refusal line, EACCES, no grant
}

var pyRead = func(file, runs string) string { return "/usr/bin/python3 read.py " + file + " " + runs }

func heldCases(t *testing.T, dl string) []heldCase {
	same := func(f string) string { return f }
	return []heldCase{
		{name: "approved once with the code", decide: []string{"approve", "--scope", "once", "--yes"}, script: pyRead, asked: same, ran: true},
		{name: "denied", decide: []string{"deny"}, script: pyRead, asked: same, refuse: true},
		{name: "test -f, then cat", decide: []string{"approve", "--scope", "once", "--yes"}, asked: same, ran: true,
			script: func(file, runs string) string {
				return "echo run >> " + runs + "; test -f " + file + " && cat " + file
			}},
		{name: "cp into the workspace", decide: []string{"approve", "--scope", "once", "--yes"}, asked: same, ran: true,
			script: func(file, runs string) string {
				return "echo run >> " + runs + "; cp " + file + " copied-" + runs + " && cat copied-" + runs
			}},
		{name: "ls the folder", decide: []string{"approve", "--scope", "once", "--yes"}, ran: true,
			asked: func(string) string { return dl },
			script: func(file, runs string) string {
				return "echo run >> " + runs + "; ls " + dl + " | grep -qx " + file[len(dl)+1:] + " && echo " + file[len(dl)+1:]
			}},
	}
}

// newHeldWalk is the door walk where opens are held in mode, with
// read.py in its workspace; it skips where the machine cannot hold them.
func newHeldWalk(t *testing.T, mode holdMode, opts ...func(*ipc.Config)) *doorWalk {
	t.Helper()
	requireFullConfinement(t)
	need(t, "python3")
	w := newDoorWalkAt(t, sandbox.Probe(), append([]func(*ipc.Config){mode.set(t)}, opts...)...)
	w.heldBy = mode.by
	writeExecFile(t, w.work+"/read.py", readScript)
	return w
}

// TestDoorWalkHeldOpen: through every door, a workspace script (which the
// guard allows and cannot see into) that reads a Downloads file is paused
// in its open; one request appears, saying the command waits and which
// program opened the file; the person decides from the headless CLI with
// the code. Approved, the same run reads the file and exits 0, having run
// once; denied, the open fails with EACCES, one refusal line says so, and
// no grant is left.
func TestDoorWalkHeldOpen(t *testing.T) {
	for _, mode := range holdModes() {
		t.Run(mode.name, func(t *testing.T) {
			w := newHeldWalk(t, mode)
			names, run := walkDoors(t)
			for i, name := range names {
				t.Run(name, func(t *testing.T) {
					for j, c := range heldCases(t, w.dl) {
						t.Run(c.name, func(t *testing.T) { w.heldCase(t, run[name], fmt.Sprintf("%d-%d", i, j), c) })
					}
				})
			}
		})
	}
}

// TestDoorWalkHeldOpenTimesOut: nobody decides; when the wait ends the
// open fails as a denial does, on every door.
func TestDoorWalkHeldOpenTimesOut(t *testing.T) {
	for _, mode := range holdModes() {
		t.Run(mode.name, func(t *testing.T) {
			w := newHeldWalk(t, mode, func(c *ipc.Config) { c.MaxWait = 2 * time.Second })
			names, run := walkDoors(t)
			for i, name := range names {
				t.Run(name, func(t *testing.T) {
					t.Parallel() // each its own file; the doors wait out MaxWait together
					w.heldCase(t, run[name], fmt.Sprint(i), heldCase{name: "timed out", script: pyRead, refuse: true,
						asked: func(f string) string { return f }})
				})
			}
		})
	}
}

// heldCase runs c through one door.
func (w *doorWalk) heldCase(t *testing.T, run doorRunner, tag string, c heldCase) {
	name := "held-" + tag + ".csv"
	file, runs := w.dl+"/"+name, "runs-"+tag+".txt"
	content := "held," + tag + "\n"
	writeExecFile(t, file, content)
	decided := make(chan wire.Request, 1)
	go func() { decided <- w.decideHeld(t, c.asked(file), c.decide) }()
	got := run(w, t, w.script(t, c.script(file, runs)))
	r := <-decided
	if r.ID == "" {
		t.Fatalf("no request was held for %s: %s", c.asked(file), got.out)
	}
	if r.Tool != engine.HoldTool || !strings.Contains(r.Held, "python3") && !strings.Contains(r.Held, "cat") &&
		!strings.Contains(r.Held, "cp") && !strings.Contains(r.Held, "ls") {
		t.Errorf("the request (tool %q, held %q) does not say the command is paused, nor in which program", r.Tool, r.Held)
	}
	if r.HeldBy != w.heldBy {
		t.Errorf("the request says it is held by %q; want %q", r.HeldBy, w.heldBy)
	}
	if b, _ := os.ReadFile(w.work + "/" + runs); string(b) != "run\n" {
		t.Errorf("the script ran %d times; want once", strings.Count(string(b), "run"))
	}
	wantOut := content
	if c.asked(file) != file {
		wantOut = name
	}
	switch {
	case c.ran && (!got.ran || !strings.Contains(got.out, wantOut)):
		t.Errorf("approved, but the run did not read the file: %s", got.out)
	case c.refuse:
		if got.ran || strings.Contains(got.out, content) {
			t.Errorf("refused, but the command read the file: %s", got.out)
		}
		if n := strings.Count(got.out, "held for approval and refused"); n != 1 {
			t.Errorf("%d refusal lines; want one: %s", n, got.out)
		}
		if !strings.Contains(got.out, "Permission denied") {
			t.Errorf("the open did not fail with EACCES: %s", got.out)
		}
		gs, err := w.store.List(grants.Filter{})
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range gs {
			if g.Path == file {
				t.Errorf("a grant for %s after a refusal: %+v", file, g)
			}
		}
	}
	for _, p := range w.srv.Engine().Pending() {
		if p.Path == file && c.decide != nil {
			t.Errorf("request %s for %s still pending after the decision", p.ID, file)
		}
	}
}

// decideHeld waits for the request of a call held on path, then decides
// it from the headless CLI (args after the id; an approval's code, the
// once code, piped on its standard input), and returns it as it was
// shown. Without args nobody decides: it returns the request once its
// wait ended.
func (w *doorWalk) decideHeld(t *testing.T, path string, args []string) wire.Request {
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		for _, r := range w.srv.Engine().Pending() {
			if r.Path != path || r.Waiting == 0 {
				continue
			}
			if args == nil {
				return r
			}
			cmd := append([]string{args[0], r.ID}, args[1:]...)
			stdin := ""
			if args[0] == "approve" {
				stdin = w.person.Code(t, r.ID) + "\n" // the once code: approve reads it on stdin
			}
			res := daemonCmd(stdin, false, nil, append(cmd, "--socket", w.sock)...)
			if res.code != 0 {
				t.Errorf("%v: %d %s %s", cmd, res.code, res.stdout, res.stderr)
			}
			return r
		}
		time.Sleep(20 * time.Millisecond)
	}
	return wire.Request{}
}

// TestHeldOpenInterrupted: a command held in an open ends when it is
// interrupted, and so does its request, within a second: Ctrl-C to the
// front end of a hook's rewritten command, and the timeout of a tool call
// the daemon runs.
func TestHeldOpenInterrupted(t *testing.T) {
	for _, mode := range holdModes() {
		t.Run(mode.name, func(t *testing.T) { heldOpenInterrupted(t, newHeldWalk(t, mode)) })
	}
}

func heldOpenInterrupted(t *testing.T, w *doorWalk) {
	tests := []struct {
		name string
		run  func(t *testing.T, script string) (interrupt func(), done <-chan walked)
	}{
		{"Ctrl-C to pathgrant-confine", func(t *testing.T, script string) (func(), <-chan walked) {
			_, capability := w.hookCapability(t, "interrupt", script)
			return startInterruptible(t, w.capCmd(w.bin, capability, script))
		}},
		{"Ctrl-C to pathgrant-confine started with SIGINT ignored", func(t *testing.T, script string) (func(), <-chan walked) {
			// as a background job of a script starts it: the front end
			// must not start bubblewrap ignoring what it forwards
			_, capability := w.hookCapability(t, "interrupt-ignored", script)
			cmd := w.capCmd(w.bin, capability, script)
			cmd.Args = append([]string{"sh", "-c", `trap "" INT; exec "$@"`, "sh", cmd.Path}, cmd.Args[1:]...)
			cmd.Path = "/bin/sh"
			return startInterruptible(t, cmd)
		}},
		{"a tool call's timeout", func(t *testing.T, script string) (func(), <-chan walked) {
			done := make(chan walked, 1)
			go func() {
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				data, _ := json.Marshal(map[string]any{"command": script, "timeout_ms": 1500})
				c := w.client()
				defer c.CloseIdle()
				done <- toolWalked(c.Tool(ctx, tools.ExecuteShellCommand, wire.ToolRequest{Args: data}))
			}()
			return func() {}, done
		}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := fmt.Sprintf("%s/interrupted-%d.csv", w.dl, i)
			writeExecFile(t, file, "x\n")
			interrupt, done := tt.run(t, w.script(t, pyRead(file, fmt.Sprintf("runs-int-%d.txt", i))))
			r := w.decideHeld(t, file, nil)
			if r.ID == "" {
				t.Fatal("the open was never held")
			}
			interrupt()
			var got walked
			select {
			case got = <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("the command did not end")
			}
			ended := time.Now()
			if got.ran {
				t.Errorf("the interrupted command succeeded: %s", got.out)
			}
			for time.Since(ended) < time.Second && w.isPending(r.ID) {
				time.Sleep(20 * time.Millisecond)
			}
			if w.isPending(r.ID) {
				t.Errorf("request %s still pending a second after the command ended", r.ID)
			}
		})
	}
}

// isPending reports whether request id is still pending.
func (w *doorWalk) isPending(id string) bool {
	for _, p := range w.srv.Engine().Pending() {
		if p.ID == id {
			return true
		}
	}
	return false
}

// TestDoorWalkHeldFolderStaysInTheView: a folder the person approved is
// handed over as the command's view shows it, on every door: through its
// descriptor, ".." leads where the view leads (no hidden socket, no
// secret, no protected file made writable), and nothing it reaches can be
// chmodded (the view's mount is read-only). A descriptor opened outside
// the view would reach the host's tree.
func TestDoorWalkHeldFolderStaysInTheView(t *testing.T) {
	for _, mode := range holdModes() {
		t.Run(mode.name, func(t *testing.T) { heldFolderStaysInTheView(t, newHeldWalk(t, mode)) })
	}
}

func heldFolderStaysInTheView(t *testing.T, w *doorWalk) {
	rel := func(p string) string { return "../" + strings.TrimPrefix(p, w.root+"/") } // from the home folder's parent
	script := fmt.Sprintf(`import os, socket
d = os.open(%q, os.O_RDONLY | os.O_DIRECTORY)
print("OPENED")
bad = []
def attempt(name, fn):
    try:
        fn()
        bad.append(name)
    except OSError:
        pass
attempt("create a git hook", lambda: os.open("../work/.git/hooks/post-checkout", os.O_WRONLY | os.O_CREAT, 0o755, dir_fd=d))
attempt("stat the secret", lambda: os.stat(%q, dir_fd=d))
attempt("list the daemon's folder", lambda: os.listdir(os.open(%q, os.O_RDONLY | os.O_DIRECTORY, dir_fd=d)))
def connect():
    os.fchdir(d)
    socket.socket(socket.AF_UNIX).connect(%q)
attempt("connect to the daemon", connect)
attempt("chmod the folder", lambda: os.fchmod(d, 0o777))
f = os.open("report.csv", os.O_RDONLY, dir_fd=d)
attempt("chmod a granted file", lambda: os.fchmod(f, 0o4755))
print("ESCAPED: " + ", ".join(bad) if bad else "HELD IN THE VIEW")
`, w.dl, "../"+rel(w.secret), "../"+rel(filepath.Dir(w.sock)), "../"+rel(w.sock))
	writeExecFile(t, w.work+"/folder.py", script)
	names, run := walkDoors(t)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			stop := w.approveAll(t)
			got := run[name](w, t, w.script(t, "/usr/bin/python3 folder.py"))
			if approved := stop(); !slices.Contains(approved, w.dl) {
				t.Fatalf("the folder's open was never held (approved %q): %s", approved, got.out)
			}
			if !strings.Contains(got.out, "OPENED") || !strings.Contains(got.out, "HELD IN THE VIEW") {
				t.Errorf("%s", got.out)
			}
			if _, err := os.Lstat(w.work + "/.git/hooks/post-checkout"); err == nil {
				t.Errorf("a git hook was created")
			}
			if fi, err := os.Stat(w.dl + "/report.csv"); err != nil || fi.Mode()&os.ModeSetuid != 0 || fi.Mode().Perm()&0o100 != 0 {
				t.Errorf("report.csv: %v %v", fi.Mode(), err)
			}
		})
	}
}

// approveAll approves, once and with its code, every held request under
// Downloads until the returned func is called; that returns the paths
// approved.
func (w *doorWalk) approveAll(t *testing.T) func() []string {
	done, ended := make(chan struct{}), make(chan []string, 1)
	go func() {
		var approved []string
		defer func() { ended <- approved }()
		for {
			select {
			case <-done:
				return
			case <-time.After(20 * time.Millisecond):
			}
			for _, r := range w.srv.Engine().Pending() {
				if r.Waiting == 0 || !strings.HasPrefix(r.Path, w.dl) {
					continue
				}
				res := daemonCmd(w.person.Code(t, r.ID)+"\n", false, nil, "approve", r.ID, "--scope", "once", "--yes", "--socket", w.sock)
				if res.code != 0 {
					t.Errorf("approve %s: %s %s", r.ID, res.stdout, res.stderr)
				}
				approved = append(approved, r.Path)
			}
		}
	}()
	return func() []string { close(done); return <-ended }
}

// startInterruptible starts cmd, a front end, and returns what sends it
// Ctrl-C and where its end is told.
func startInterruptible(t *testing.T, cmd *exec.Cmd) (func(), <-chan walked) {
	t.Helper()
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan walked, 1)
	go func() { err := cmd.Wait(); done <- walked{out: out.String(), ran: err == nil} }()
	return func() { _ = cmd.Process.Signal(os.Interrupt) }, done
}
