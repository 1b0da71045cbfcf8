package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"pathgrant/grants"
	"pathgrant/guard"
	"pathgrant/wire"
)

// agentCalls starts a separate agent process whose hook sends n identical
// checks of a Downloads file at once, each waiting for the person; wait
// yields their answers.
func (e *daemonEnv) agentCalls(t *testing.T, name string, n int, wait time.Duration) func() []wire.Answer {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), agentEnv+"=agent", "PATHGRANT_TEST_SOCKET="+e.sock,
		"PATHGRANT_TEST_SESSION="+e.sess.ID, "PATHGRANT_TEST_TOKEN="+e.sess.Token, "PATHGRANT_TEST_PATH="+e.dl+"/"+name,
		"PATHGRANT_TEST_CALLS="+strconv.Itoa(n), "PATHGRANT_TEST_WAIT="+strconv.FormatInt(wait.Milliseconds(), 10))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return func() []wire.Answer {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("agent: %v: %s", err, stderr.String())
		}
		var out []wire.Answer
		sc := bufio.NewScanner(&stdout)
		for sc.Scan() {
			var ans wire.Answer
			if err := json.Unmarshal(sc.Bytes(), &ans); err != nil {
				t.Fatalf("answer %q: %v", sc.Text(), err)
			}
			out = append(out, ans)
		}
		return out
	}
}

// waitingRequest polls until the one pending request has n waiting calls.
func (e *daemonEnv) waitingRequest(t *testing.T, n int) wire.Request {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if p := e.srv.Engine().Pending(); len(p) == 1 && p[0].Waiting == n {
			return p[0]
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("never %d waiting calls: %+v", n, e.srv.Engine().Pending())
	return wire.Request{}
}

// TestApproveAnswersEveryWaitingCall: 50 calls of an agent wait on one
// request; `pending` shows them, and one `approve --scope once`, by a
// prefix of the id, answers all 50, leaving nothing pending.
func TestApproveAnswersEveryWaitingCall(t *testing.T) {
	e := newDaemonEnv(t)
	answers := e.agentCalls(t, "report.csv", 50, 20*time.Second)
	r := e.waitingRequest(t, 50)
	if table := daemonCmd("", false, nil, "pending", "--socket", e.sock).ok(t).stdout; !strings.Contains(table, "WAITING") || !strings.Contains(table, "50 for ") {
		t.Errorf("pending does not show the waiting calls:\n%s", table)
	}
	out := daemonCmd(e.person.Code(t, r.ID)+"\n", false, nil, "approve", r.ID[:grants.MinPrefix], "--scope", "once", "--yes", "--socket", e.sock).ok(t).stdout
	if !strings.Contains(out, r.ID+" approved") || !strings.Contains(out, "once (one call)") {
		t.Errorf("approve printed %q", out)
	}
	got := answers()
	allowed := 0
	for _, ans := range got {
		if ans.Decision == guard.Allow {
			allowed++
		}
	}
	if len(got) != 50 || allowed != 50 || len(e.srv.Engine().Pending()) != 0 {
		t.Fatalf("%d answers, %d allowed, %d pending; want 50, 50, 0", len(got), allowed, len(e.srv.Engine().Pending()))
	}
}

// TestDenySession: `deny --session` denies the same access from that
// session at once afterwards, with no new request, telling the agent not
// to retry; a plain deny stays one-shot.
func TestDenySession(t *testing.T) {
	e := newDaemonEnv(t)
	id := e.requestFromAgent(t, "report.csv")
	out := daemonCmd("", false, nil, "deny", id[:grants.MinPrefix], "--session", "--socket", e.sock).ok(t).stdout
	if !strings.Contains(out, id+" denied") || !strings.Contains(out, "rest of the session") {
		t.Errorf("deny --session printed %q", out)
	}
	for _, ans := range e.agentCalls(t, "report.csv", 3, 0)() {
		if ans.Decision != guard.Deny || ans.Pending != "" || !strings.Contains(ans.Reason, "do not retry") {
			t.Errorf("after deny --session: %+v", ans)
		}
	}
	if p := e.srv.Engine().Pending(); len(p) != 0 {
		t.Fatalf("a remembered denial queued %+v", p)
	}
	var listed []wire.Denial
	if err := json.Unmarshal([]byte(denialsCmd(t, "--json", "--socket", e.sock).stdout), &listed); err != nil || len(listed) != 1 || listed[0].Hits != 3 {
		t.Fatalf("denials --json: %+v %v", listed, err)
	}
	if table := denialsCmd(t, "--socket", e.sock).stdout; !strings.Contains(table, listed[0].ID) || !strings.Contains(table, e.dl+"/report.csv") {
		t.Errorf("denials table:\n%s", table)
	}
	denialsCmd(t, "lift", listed[0].ID[:grants.MinPrefix], "--socket", e.sock)
	e.requestFromAgent(t, "report.csv") // asks again
	other := e.requestFromAgent(t, "other.csv")
	daemonCmd("", false, nil, "deny", other, "--socket", e.sock).ok(t)
	if again := e.requestFromAgent(t, "other.csv"); again == other {
		t.Fatal("a plain deny did not ask again")
	}
}

func denialsCmd(t *testing.T, args ...string) result {
	t.Helper()
	return run(func(a []string, o, e *bytes.Buffer) int { return runDenials(a, o, e) }, args...).ok(t)
}

// TestApproveFor: `approve --for 2s` makes a grant that serves for two
// seconds, then ends on time and is in `audit --kind expire`.
func TestApproveFor(t *testing.T) {
	e := newDaemonEnv(t)
	id := e.requestFromAgent(t, "report.csv")
	out := daemonCmd(e.person.CodeFor(t, id, "session+15m")+"\n", false, nil, "approve", id, "--scope", "session", "--for", "2s", "--yes", "--socket", e.sock).ok(t).stdout
	if !strings.Contains(out, "for 2s, or until the session ends") {
		t.Errorf("approve --for printed %q", out)
	}
	if ans := e.agentCalls(t, "report.csv", 1, 0)(); ans[0].Decision != guard.Allow {
		t.Fatalf("within its time: %+v", ans[0])
	}
	deadline := time.Now().Add(6 * time.Second)
	for {
		text := auditCmd("--kind", "expire", "--socket", e.sock).ok(t).stdout
		if strings.Contains(text, e.dl+"/report.csv") && strings.Contains(text, "expired") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no expire record:\n%s", text)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if ans := e.agentCalls(t, "report.csv", 1, 0)(); ans[0].Decision != guard.Deny {
		t.Fatalf("after its time: %+v", ans[0])
	}
}

// TestDecisionUsage: what the decision commands refuse, one line each.
func TestDecisionUsage(t *testing.T) {
	e := newDaemonEnv(t)
	id := e.requestFromAgent(t, "report.csv")
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"a once grant for a time", []string{"approve", id, "--scope", "once", "--for", "1h", "--yes"}, 2, "--for limits a session or device grant"},
		{"a negative time", []string{"approve", id, "--scope", "session", "--for", "-1h", "--yes"}, 2, "--for must be positive"},
		{"not a duration", []string{"approve", id, "--scope", "session", "--for", "soon", "--yes"}, 2, "--for"},
		{"a prefix too short", []string{"approve", id[:grants.MinPrefix-1], "--scope", "once", "--yes"}, 1, "too short"},
		{"a code on the command line", []string{"approve", id, "--scope", "once", "--yes", "--code", "X"}, 2, "--code is refused"},
		{"a code after the id", []string{"approve", id, "--code=X", "--scope", "once", "--yes"}, 2, "--code is refused"},
		{"deny by a prefix too short", []string{"deny", id[:grants.MinPrefix-1]}, 1, "too short"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := daemonCmd("X\n", false, nil, append(tc.args, "--socket", e.sock)...)
			if r.code != tc.code || !strings.Contains(r.stderr, tc.stderr) || strings.Count(r.stderr, "\n") != 1 {
				t.Errorf("exit %d, stderr %q; want %d and one line with %q", r.code, r.stderr, tc.code, tc.stderr)
			}
		})
	}
	if r := e.request(t, id); r.State != wire.StatePending {
		t.Fatalf("a refused command decided the request: %s", r.State)
	}
}

// TestAuditKind: --kind takes a kind's name or its label; anything else
// is a usage error naming the kinds.
func TestAuditKind(t *testing.T) {
	e := newDaemonEnv(t)
	id := e.requestFromAgent(t, "report.csv")
	daemonCmd("WRONGCOD\n", false, nil, "approve", id, "--scope", "once", "--yes", "--socket", e.sock)
	for _, kind := range []string{"code", "wrong code"} {
		text := auditCmd("--kind", kind, "--socket", e.sock).ok(t).stdout
		if !strings.Contains(text, "wrong code") || strings.Contains(text, "asked") {
			t.Errorf("audit --kind %q:\n%s", kind, text)
		}
	}
	if r := auditCmd("--kind", "forgd", "--socket", e.sock); r.code != 2 || !strings.Contains(r.stderr, "refuse") {
		t.Errorf("audit --kind forgd: exit %d, %q", r.code, r.stderr)
	}
}
