package cli

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"pathgrant/apiclient"
	"pathgrant/appdirs"
	"pathgrant/sandbox"
	"pathgrant/wire"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"pathgrant/grants"
	"pathgrant/guard"
)

// hookCapability checks command as a hook-only client would (no session
// token anywhere) and returns the exec capability the daemon issued.
func (e *execEnv) hookCapability(t testing.TB, client, command string) (wire.Answer, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ans, err := apiclient.New(e.sock).Check(ctx, wire.CheckRequest{ClientSession: client, Cwd: e.work, Agent: "claude", Tool: "Bash",
		Command: "cd -- " + e.work + " && " + command, ExecCommand: command})
	if err != nil {
		t.Fatalf("check %q: %v", command, err)
	}
	if ans.Exec == nil {
		t.Fatalf("answer %+v carries no exec info", ans)
	}
	return ans, ans.Exec.Capability
}

// capCmd is the command a hook rewrote, run by pathgrant-confine (next to
// bin, the pathgrant binary): PATHGRANT_CAP set, no session and no token
// in the environment.
func (e *execEnv) capCmd(bin, capability, command string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(filepath.Dir(bin), sandbox.ConfineName), "exec", "--", "bash", "-c", command)
	cmd.Dir = e.work
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + e.home, "TMPDIR=" + e.tmp, wire.CapEnv + "=" + capability,
		appdirs.SocketEnv + "=" + e.sock}
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

// TestExecDetachedCannotApprove: a process a confined command detaches
// (setsid -f, or a double fork) under the default confinement (a hook's
// capability, no token) tries to approve a pending request with
// `pathgrant approve` and over a raw socket connection. Neither reaches
// the socket: the request stays pending and no grant exists.
func TestExecDetachedCannotApprove(t *testing.T) {
	requireFullConfinement(t)
	bin := buildBinary(t)
	e := newExecEnv(t)
	need(t, "setsid")
	need(t, "python3")
	target := e.dl + "/other.csv"
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ans, err := e.client().Check(ctx, wire.CheckRequest{Op: guard.OpRead, Path: target, Tool: "Read"})
	if err != nil || ans.Pending == "" {
		t.Fatalf("no pending request: %+v %v", ans, err)
	}
	raw := fmt.Sprintf(`/usr/bin/python3 -c 'import socket; s = socket.socket(socket.AF_UNIX); s.connect(%q); `+
		`s.sendall(b"POST /v1/requests/%s/decision HTTP/1.1\r\nHost: p\r\nContent-Length: 19\r\n\r\n{\"scope\":\"device\"}"); print(s.recv(4096))'`,
		e.sock, ans.Pending)
	approve := fmt.Sprintf("echo ABCDEFGH | %s approve %s --scope device --yes --socket %s", bin, ans.Pending, e.sock)
	attempt := func(out string) string {
		return fmt.Sprintf("{ %s; echo approve=$?; %s; echo raw=$?; } > %s 2>&1; mv %s %s.done", approve, raw, out, out, out)
	}
	tests := []struct{ name, detach string }{
		{"setsid -f", "setsid -f sh %s"},
		{"double fork", "( ( sh %s & ) & )"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := fmt.Sprintf("%s/attempt-%d", e.work, i)
			// The command waits for its detached process (the PID namespace
			// would end it with the command), then ends.
			script := fmt.Sprintf("detach-%d.sh", i)
			writeExecFile(t, out+".sh", attempt(out)+"\n")
			writeExecFile(t, e.work+"/"+script, fmt.Sprintf(tt.detach, out+".sh")+
				fmt.Sprintf("\nfor i in $(seq 100); do [ -e %s.done ] && break; sleep 0.1; done\n", out))
			command := "bash ./" + script // the guard allows it: the kernel is what stops it
			ans, capability := e.hookCapability(t, "claude-detach-"+strconv.Itoa(i), command)
			if capability == "" {
				t.Fatalf("no capability for %q: %+v", command, ans)
			}
			r := runCmd(t, e.capCmd(bin, capability, command))
			got, err := os.ReadFile(out + ".done")
			if err != nil {
				t.Fatalf("the detached process left no result (exit %d, stderr %q): %v", r.code, r.stderr, err)
			}
			if !strings.Contains(string(got), "approve=1") || strings.Contains(string(got), "raw=0") || strings.Contains(string(got), "HTTP/1.1") {
				t.Errorf("a detached process reached the daemon:\n%s", got)
			}
		})
	}
	if pending := e.srv.Engine().Pending(); !slices.ContainsFunc(pending, func(r wire.Request) bool { return r.ID == ans.Pending }) {
		t.Errorf("request %s is no longer pending: %+v", ans.Pending, pending)
	}
	gs, err := e.store.List(grants.Filter{IncludeRevoked: true, IncludeExpired: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range gs {
		if g.Path == target {
			t.Errorf("a grant for %s exists: %+v", target, g)
		}
	}
}

// TestHookOnlyFrontEndAttacks: a workspace script (the guard allows it,
// the kernel is what stops it) run as a hook's rewritten command goes
// after what the prepared-sandbox path adds. It cannot see the capability
// its front end presented, nor spend it again; it cannot put a daemon of
// its own where the next rewritten command will look for one; and a link
// in the session tmp dir leads nowhere outside. The real daemon still
// answers afterwards.
func TestHookOnlyFrontEndAttacks(t *testing.T) {
	requireFullConfinement(t)
	need(t, "python3")
	bin := buildBinary(t)
	e := newExecEnv(t)
	confine := filepath.Join(filepath.Dir(bin), sandbox.ConfineName)
	plant := fmt.Sprintf(`/usr/bin/python3 -c 'import os, socket; os.unlink(%q)' ; `+
		`/usr/bin/python3 -c 'import socket; s = socket.socket(socket.AF_UNIX); s.bind(%q); print("planted")'`, e.sock, e.sock)
	tests := []struct {
		name, script string
		never        string // never in the stdout
	}{
		{"read the capability from the environment", `env; exit 1`, wire.CapEnv + "="},
		{"present the capability again", `PATHGRANT_CAP="$CAP" ` + confine + ` exec -- echo ran-again`, "ran-again"},
		{"plant a daemon at the socket's path", plant, "planted"},
		{"a link in the session tmp dir to a file outside", `ln -s ` + e.secret + ` "$TMPDIR/s" && cat "$TMPDIR/s"`, secretText},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			script := fmt.Sprintf("attack-%d.sh", i)
			command := "bash ./" + script
			_, capability := e.hookCapability(t, "claude-attack-"+strconv.Itoa(i), command)
			if capability == "" {
				t.Fatalf("no capability for %q", command)
			}
			writeExecFile(t, e.work+"/"+script, "CAP="+capability+"\n"+tt.script+"\n")
			r := runCmd(t, e.capCmd(bin, capability, command))
			t.Logf("exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
			if r.code == 0 || strings.Contains(r.stdout, tt.never) || strings.Contains(r.stdout, capability) {
				t.Errorf("exit %d stdout %q stderr %q; want a failure, never %q or the capability", r.code, r.stdout, r.stderr, tt.never)
			}
		})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := e.client().Policy(ctx); err != nil {
		t.Errorf("the daemon no longer answers on its socket: %v", err)
	}
	if fi, err := os.Lstat(e.sock); err != nil || fi.Mode()&os.ModeSocket == 0 {
		t.Errorf("the daemon's socket was replaced: %v %v", fi, err)
	}
}
