package e2e

import (
	"strings"
	"testing"
	"time"

	"pathgrant/grants"
	"pathgrant/guard"
	"pathgrant/wire"
)

// TestGrantForEndsOnTime: the person copies the inbox's terminal command
// (Alt+C, read back off the X clipboard) and approves from a terminal for
// the session with --for 2s: the grant serves the agent, then ends on
// time, audited as expired, and the next read asks again.
func TestGrantForEndsOnTime(t *testing.T) {
	b, _ := startInbox(t)
	read := b.file("report.csv")
	// The agent's checks come from processes of its own (curl), so this
	// test stays the person, who may decide.
	check := func() wire.Answer { return <-agentCheck(t, b.e, b.agent, read) }
	id := check().Pending
	if id == "" {
		t.Fatal("the read raised no request")
	}
	win := b.window("(1 of 1)")
	b.key(win, "alt+c")
	var copied string
	waitUntil(t, 10*time.Second, "the command on the clipboard", func() bool {
		out, _ := b.d.command("xclip", "-o", "-selection", "clipboard").Output()
		copied = strings.TrimSpace(string(out))
		return strings.HasPrefix(copied, "pathgrant approve "+id+" ")
	})
	_, code, ok := strings.Cut(copied, " --code ")
	if !ok || !strings.Contains(copied, "--scope once") {
		t.Fatalf("copied %q, want the complete command", copied)
	}
	// From the person's terminal: a process of its own, not under the agent.
	out, status := cliRun(t, b.d, b.e, "approve", id[:grants.MinPrefix], "--scope", "session", "--for", "2s", "--yes", "--code", code)
	if status != 0 || !strings.Contains(out, "for 2s, or until the session ends") {
		t.Fatalf("approve --for 2s: exit %d, %q", status, out)
	}
	approved := time.Now()
	if ans := check(); ans.Decision != guard.Allow {
		t.Fatalf("within the 2 s: %+v", ans)
	}
	waitUntil(t, 10*time.Second, "the grant's expiry in the audit log", func() bool {
		text, _ := cliRun(t, b.d, b.e, "audit", "--kind", "expire")
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
