package cli

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"pathgrant/ipc"
	"pathgrant/ipc/hooks"
)

// hookCapability checks command as a hook-only client would (no session
// token anywhere) and returns the exec capability the daemon issued.
func (e *execEnv) hookCapability(t *testing.T, client, command string) (ipc.Answer, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ans, err := ipc.NewClient(e.sock).Check(ctx, ipc.CheckRequest{ClientSession: client, Cwd: e.work, Agent: "claude", Tool: "Bash",
		Command: "cd -- " + e.work + " && " + command, ExecCommand: command})
	if err != nil {
		t.Fatalf("check %q: %v", command, err)
	}
	if ans.Exec == nil {
		t.Fatalf("answer %+v carries no exec info", ans)
	}
	return ans, ans.Exec.Capability
}

// capCmd is the command a hook rewrote: PATHGRANT_CAP set, no session
// and no token in the environment.
func (e *execEnv) capCmd(bin, capability, command string) *exec.Cmd {
	cmd := exec.Command(bin, "exec", "--socket", e.sock, "--", "bash", "-c", command)
	cmd.Dir = e.work
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + e.home, "TMPDIR=" + e.tmp, hooks.CapEnv + "=" + capability}
	return cmd
}

// TestExecHookOnly: a hook-only session's rewritten command runs confined
// with the capability its hook got: the workspace works, a file outside
// is not there, and the capability is spent by the first run and bound to
// its command.
func TestExecHookOnly(t *testing.T) {
	requireFullConfinement(t)
	bin := buildBinary(t)
	e := newExecEnv(t)
	tests := []struct {
		name, command string
		run           string // the command run with the capability; "" for command
		reuse         bool   // run it twice
		want          int
		stdout        string
	}{
		{"workspace file", "cat main.go", "", false, 0, "package main"},
		{"a script in the workspace reading outside", "bash ./leak.sh", "", false, anyFailure, ""},
		{"capability used twice", "true", "", true, execRefused, ""},
		{"capability for another command", "true", "cat " + e.secret, false, execRefused, ""},
	}
	writeExecFile(t, e.work+"/leak.sh", "cat "+e.secret+"\n")
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ans, capability := e.hookCapability(t, "claude-"+string(rune('a'+i)), tt.command)
			if capability == "" || !ans.Exec.Confine {
				t.Fatalf("no capability for %q: %+v", tt.command, ans)
			}
			run := tt.command
			if tt.run != "" {
				run = tt.run
			}
			r := runCmd(t, e.capCmd(bin, capability, run))
			if tt.reuse {
				r = runCmd(t, e.capCmd(bin, capability, run))
			}
			if !statusOK(r.code, tt.want) || !strings.Contains(r.stdout, tt.stdout) || strings.Contains(r.stdout, secretText) {
				t.Errorf("exit %d stdout %q stderr %q; want %d and %q, never the secret", r.code, r.stdout, r.stderr, tt.want, tt.stdout)
			}
		})
	}
}
