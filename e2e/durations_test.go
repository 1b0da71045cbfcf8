package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"pathgrant/apiclient"
	"pathgrant/grants"
	"pathgrant/guard"
	"pathgrant/ipc/ipctest"
	"pathgrant/wire"
)

// TestInboxCommandCarriesNoCode: the inbox's terminal command (Alt+C,
// read back off the X clipboard) is complete and carries no approval code:
// `pathgrant approve` asks for the code, so none is ever on a command line.
func TestInboxCommandCarriesNoCode(t *testing.T) {
	b, _ := startInbox(t)
	id := b.ask(b.file("report.csv"))
	win := b.window("(1 of 1)")
	b.key(win, "alt+c")
	var copied string
	waitUntil(t, 10*time.Second, "the command on the clipboard", func() bool {
		out, _ := b.d.command("xclip", "-o", "-selection", "clipboard").Output()
		copied = strings.TrimSpace(string(out))
		return strings.HasPrefix(copied, "pathgrant approve "+id+" ")
	})
	if copied != "pathgrant approve "+id+" --scope once" {
		t.Fatalf("copied %q, want the once command and no code", copied)
	}
	b.denyAll()
}

// TestGrantForEndsOnTime: from a terminal, the person approves a headless
// daemon's request for the session with --for 2s, the code of "session for
// 15 minutes" from the daemon's log piped on approve's standard input (a
// limited choice's code takes a shorter --for): the grant serves the
// agent, then ends on time, audited as expired, and the next read asks
// again.
func TestGrantForEndsOnTime(t *testing.T) {
	d := startDesktop(t)
	e := newAppEnv(t)
	logPath := filepath.Join(artifactDir(t), "durations-headless-daemon.log")
	logf, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	daemon := exec.Command(appBinary(t), "serve", "--headless")
	daemon.Env = e.vars(d)
	daemon.Stdout, daemon.Stderr = logf, logf
	startGroup(t, daemon)
	c := apiclient.New(e.socket)
	waitUntil(t, 20*time.Second, "the headless daemon", func() bool { return c.Health(context.Background()) == nil })
	agent := agentSession(t, e)
	read := wire.CheckRequest{Command: "cat ~/Downloads/report.csv", Tool: "Bash"}
	// The agent's checks come from processes of its own (curl), so this
	// test stays the person, who may decide.
	check := func() wire.Answer { return <-agentCheck(t, e, agent, read) }
	id := check().Pending
	if id == "" {
		t.Fatal("the read raised no request")
	}
	logged := func() string { b, _ := os.ReadFile(logPath); return string(b) }
	code := ipctest.LogCode(t, logged, id, "session+15m")
	// the once code is refused for the session: it buys its own choice only
	if out, status := cliRunIn(t, d, e, ipctest.LogCode(t, logged, id, "once")+"\n",
		"approve", id[:grants.MinPrefix], "--scope", "session", "--for", "2s", "--yes"); status != 1 {
		t.Fatalf("the once code for a session: exit %d, %q", status, out)
	}
	// From the person's terminal: a process of its own, not under the agent.
	out, status := cliRunIn(t, d, e, code+"\n", "approve", id[:grants.MinPrefix], "--scope", "session", "--for", "2s", "--yes")
	if status != 0 || !strings.Contains(out, "for 2s, or until the session ends") {
		t.Fatalf("approve --for 2s: exit %d, %q", status, out)
	}
	approved := time.Now()
	if ans := check(); ans.Decision != guard.Allow {
		t.Fatalf("within the 2 s: %+v", ans)
	}
	waitUntil(t, 10*time.Second, "the grant's expiry in the audit log", func() bool {
		text, _ := cliRun(t, d, e, "audit", "--kind", "expire")
		return strings.Contains(text, "/Downloads/report.csv")
	})
	if took := time.Since(approved); took < 2*time.Second || took > 6*time.Second {
		t.Errorf("the 2 s grant ended after %v", took)
	}
	ans := check()
	if ans.Decision != guard.Deny || ans.Pending == "" {
		t.Fatalf("after its time: %+v, want a new request", ans)
	}
	if ans.Pending == id || ans.Rule == wire.RuleGrant {
		t.Fatalf("the ended grant still answers: %+v", ans)
	}
}
