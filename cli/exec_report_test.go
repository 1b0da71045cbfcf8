package cli

import (
	"bufio"
	"bytes"
	"errors"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"pathgrant/guard"
	"pathgrant/sandbox"
	"pathgrant/wire"
)

// paths to ask about.
func TestReads(t *testing.T) {
	in := sandbox.Input{TmpDir: "/t/s", Policy: wire.Policy{Workspace: []string{"/w"}, ReadOnly: []string{"/ro"},
		Grants: []guard.Scope{{Op: guard.OpRead, Path: "/d/f.csv", Kind: guard.KindFile},
			{Op: guard.OpRead, Path: "/dd", Kind: guard.KindFolder}, {Op: guard.OpWrite, Path: "/wr", Kind: guard.KindFolder}}},
		Device: sandbox.Device{Toolchains: []string{"/opt/go"}}}
	tests := []struct {
		path string
		want bool
	}{
		{"/w/a", true}, {"/ro/x", true}, {"/d/f.csv", true}, {"/d/g.csv", false}, {"/dd/x/y", true}, {"/wr/x", false},
		{"/opt/go/bin/go", true}, {"/t/s/f", true}, {"/usr/bin/cat", true}, {"/etc/passwd", true}, {"/tmp/x", false},
		{"/home/u/secret", false}, {"/w/../home", false}, {"relative", false},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			if got := in.Reads(tt.path); got != tt.want {
				t.Errorf("Reads(%q) = %v; want %v", tt.path, got, tt.want)
			}
		})
	}
}

// TestExecExplainsRefusals: a confined command that fails on a path
// outside its view is followed, on its stderr, by one line per path
// saying whether reading it can be approved (and the request raised);
// status, stdout and stdin pass through unchanged.
func TestExecExplainsRefusals(t *testing.T) {
	requireFullConfinement(t)
	bin := buildBinary(t)
	e := newExecEnv(t)
	e.noHold.Store(true) // explained afterwards: with held opens the person decides during the run (door_hold_test)
	writeExecFile(t, e.dl+"/asked.csv", "x\n")
	writeExecFile(t, e.work+"/leak.py", "print(open('"+e.secret+"').read())\n")
	cannot := "pathgrant: " + e.secret + " is outside this session's permissions and cannot be approved"
	tests := []struct {
		name, script, stdin string
		code                int
		stdout              string
		stderr              []string // each must appear
		none                bool     // no pathgrant line at all
	}{
		{"cat outside", "cat " + e.secret, "", 1, "", []string{"cat: " + e.secret, cannot}, false},
		{"python outside", "/usr/bin/python3 leak.py", "", 1, "", []string{"Error", cannot}, false},
		{"eligible read raises a request", "cat " + e.dl + "/asked.csv", "", 1, "",
			[]string{"pathgrant: " + e.dl + "/asked.csv is outside this session's permissions; reading it needs the person's approval: they were asked in pathgrant's window (or with `pathgrant approve` in a terminal) (request "}, false},
		{"a missing workspace file is not explained", "cat nothere.txt " + e.work + "/gone.txt", "", 1, "", nil, true},
		{"status passes through", "echo out; echo err >&2; exit 3", "", 3, "out\n", []string{"err"}, true},
		{"stdin and stdout pass through", "tr a-z A-Z", "hello", 0, "HELLO", nil, true},
		{"a signal the command dies of", "kill -TERM $$", "", 128 + 15, "", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := e.execCmd(bin, "--", "bash", "-c", tt.script)
			cmd.Stdin = strings.NewReader(tt.stdin)
			r := runCmd(t, cmd)
			if r.code != tt.code || r.stdout != tt.stdout && tt.stdout != "" || strings.Contains(r.stdout+r.stderr, secretText) {
				t.Errorf("exit %d stdout %q stderr %q; want %d and %q, never the secret", r.code, r.stdout, r.stderr, tt.code, tt.stdout)
			}
			for _, want := range tt.stderr {
				if !strings.Contains(r.stderr, want) {
					t.Errorf("stderr %q; want %q in it", r.stderr, want)
				}
			}
			if tt.none && strings.Contains(r.stderr, "pathgrant:") {
				t.Errorf("stderr %q explains a refusal it should not", r.stderr)
			}
		})
	}
	id := regexp.MustCompile(`\(request (\S+)\)`)
	found := false
	for _, req := range e.srv.Engine().Pending() {
		found = found || req.Path == e.dl+"/asked.csv"
	}
	if !found {
		t.Errorf("no pending request for %s; pending %+v (%v)", e.dl+"/asked.csv", e.srv.Engine().Pending(), id)
	}
}

// TestExecHookOnlyExplains: a hook-only session's rewritten command (its
// capability spent by the policy fetch) still gets its refusal explained:
// exec asks as the agent's descendant, as the hook does.
func TestExecHookOnlyExplains(t *testing.T) {
	requireFullConfinement(t)
	bin := buildBinary(t)
	e := newExecEnv(t)
	writeExecFile(t, e.work+"/leak.sh", "cat "+e.secret+"\n")
	_, capability := e.hookCapability(t, "claude-explain", "bash ./leak.sh")
	r := runCmd(t, e.capCmd(bin, capability, "bash ./leak.sh"))
	want := "pathgrant: " + e.secret + " is outside this session's permissions and cannot be approved"
	if r.code == 0 || !strings.Contains(r.stderr, want) || strings.Contains(r.stdout, secretText) {
		t.Errorf("exit %d stdout %q stderr %q; want a failure and %q", r.code, r.stdout, r.stderr, want)
	}
}

// TestExecSignalPassesThrough: a signal sent to exec reaches the command,
// and exec ends the way the command did.
func TestExecSignalPassesThrough(t *testing.T) {
	requireFullConfinement(t)
	bin := buildBinary(t)
	e := newExecEnv(t)
	cmd := e.execCmd(bin, "--", "bash", "-c", "echo ready; exec sleep 30")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if line, err := bufio.NewReader(out).ReadString('\n'); line != "ready\n" {
		t.Fatalf("the command did not start: %q %v", line, err)
	}
	start := time.Now()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("exec: %v", err)
	}
	ws := ee.Sys().(syscall.WaitStatus)
	if !ws.Signaled() || ws.Signal() != syscall.SIGTERM || time.Since(start) > 5*time.Second {
		t.Errorf("exec ended %v after %v (stderr %q); want killed by SIGTERM at once", ws, time.Since(start), stderr.String())
	}
}
