package e2e

import (
	"bufio"
	"bytes"
	"context"
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
	"pathgrant/wire"
)

// appPid is the pid of the app the daemon runs (pathgrant-ui app --link,
// its child); 0 when none runs.
func appPid(t *testing.T, daemon *exec.Cmd) int {
	t.Helper()
	out, _ := exec.Command("pgrep", "-P", strconv.Itoa(daemon.Process.Pid), "-f", "pathgrant-ui app --link").Output()
	fields := strings.Fields(string(out))
	if len(fields) != 1 {
		return 0
	}
	pid, err := strconv.Atoi(fields[0])
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// claudeRead runs the real hook as Claude Code does, on the recorded
// PreToolUse Read payload for path, in e's workspace, as a Claude Code
// session of its own (session, a uuid's last group); wait is its
// PATHGRANT_WAIT_MS ("0": it does not wait for the person). Its stdout
// arrives on the channel when it exits.
func claudeRead(t *testing.T, d *desktop, e appEnv, session, path, wait string) <-chan string {
	t.Helper()
	data, err := os.ReadFile("../hooks/testdata/claude-pretooluse-read-workspace.json")
	if err != nil {
		t.Fatal(err)
	}
	data = bytes.ReplaceAll(data, []byte("/home/user/work/main.go"), []byte(path))
	data = bytes.ReplaceAll(data, []byte("9b0b142294d4"), []byte(session))
	data = bytes.ReplaceAll(data, []byte("/home/user"), []byte(e.home))
	// timeout stands for Claude Code, which runs its hooks with sh -c and
	// lives on after them (sh becomes sleep): the daemon takes it for the
	// session's agent, and this process stays the person.
	cmd := exec.Command("timeout", "120", "sh", "-c", `"$0" claude; echo; echo `+hookDone+`; exec sleep 120`,
		filepath.Join(activationBinaries(t), "pathgrant-hook"))
	cmd.Dir, cmd.Stdin = e.work, bytes.NewReader(data)
	cmd.Env = append(e.vars(d), appdirs.WaitEnv+"="+wait)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	out := make(chan string, 1)
	go func() {
		var got strings.Builder
		sc := bufio.NewScanner(stdout)
		for sc.Scan() && sc.Text() != hookDone {
			got.WriteString(sc.Text())
		}
		out <- got.String()
	}()
	return out
}

// hookDone ends a hook's output in claudeRead.
const hookDone = "__hook_done__"

// TestAppKilledLosesNothing: the app killed with SIGKILL while three
// requests wait and Claude Code's real hook waits on one of them. The
// daemon keeps answering checks, the waiting hook is not answered by the
// kill, the daemon starts the app again, which shows the same three, and
// the person's Allow there answers the hook that waited all along.
func TestAppKilledLosesNothing(t *testing.T) {
	d := startDesktopWith(t, inboxDunstrc(t))
	e := newAppEnv(t)
	daemon := startTheApp(t, d, e, "app-restart.log")
	person := apiclient.New(e.socket)
	pending := func(n int) []wire.Request {
		var rs []wire.Request
		waitUntil(t, 20*time.Second, strconv.Itoa(n)+" pending requests", func() bool {
			rs, _ = person.Pending(context.Background())
			return len(rs) == n
		})
		return rs
	}
	b := &inbox{t: t, d: d, e: e}
	waited := claudeRead(t, d, e, "000000000001", e.home+"/Downloads/report.csv", "50000") // the first in the inbox
	pending(1)
	for i, name := range []string{"other-0.csv", "other-1.csv"} {
		b.file(name)
		<-claudeRead(t, d, e, "00000000001"+strconv.Itoa(i), e.home+"/Downloads/"+name, "0")
	}
	pending(3)
	b.window("(1 of 3)")
	first := appPid(t, daemon)
	if first == 0 {
		t.Fatal("no app runs under the daemon")
	}
	if err := syscall.Kill(first, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, 10*time.Second, "the app gone", func() bool { return appPid(t, daemon) != first })

	if out := <-claudeRead(t, d, e, "000000000002", e.work+"/main.go", "0"); out+"\n" != workspaceReadAnswer {
		t.Fatalf("a workspace read while the app was gone was answered %q, want %q", out, workspaceReadAnswer)
	}
	select {
	case out := <-waited:
		t.Fatalf("the waiting hook was answered when the app died: %q", out)
	default:
	}

	waitUntil(t, 20*time.Second, "the app started again", func() bool { p := appPid(t, daemon); return p != 0 && p != first })
	win := b.window("(1 of 3)")
	d.screenshot(t, "app-restarted.png")
	pending(3)
	b.key(win, "alt+o")
	select {
	case out := <-waited:
		if !strings.Contains(out, `"permissionDecision":"allow"`) {
			t.Fatalf("the waiting hook was answered %q", out)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the waiting hook was never answered")
	}
	pending(2)
	b.window("(1 of 2)")
}
