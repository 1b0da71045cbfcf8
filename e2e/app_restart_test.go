package e2e

import (
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"pathgrant/guard"
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

// TestAppKilledLosesNothing: the app killed with SIGKILL while three
// requests wait and an agent's call waits on one of them. The daemon keeps
// answering checks, the waiting call is not answered by the kill, the
// daemon starts the app again, which shows the same three, and the
// person's Allow there answers the call that waited all along.
func TestAppKilledLosesNothing(t *testing.T) {
	b, daemon := startInbox(t)
	waited := b.file("waited.csv")
	answer := waitingCheck(b.agent, waited) // the first in the inbox
	b.waitPending(1)
	for i := range 2 {
		b.ask(b.file(fmt.Sprintf("other-%d.csv", i)))
	}
	b.waitPending(3)
	b.window("(1 of 3)")
	first := appPid(t, daemon)
	if first == 0 {
		t.Fatal("no app runs under the daemon")
	}
	if err := syscall.Kill(first, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, 10*time.Second, "the app gone", func() bool { return appPid(t, daemon) != first })

	ans, err := b.agent.Check(context.Background(), wire.CheckRequest{Command: "cat main.go", Tool: "Bash", Cwd: b.e.work})
	if err != nil || ans.Decision != guard.Allow {
		t.Fatalf("a workspace read while the app was gone: %+v %v", ans, err)
	}
	select {
	case ans := <-answer:
		t.Fatalf("the waiting call was answered when the app died: %+v", ans)
	default:
	}

	waitUntil(t, 20*time.Second, "the app started again", func() bool { p := appPid(t, daemon); return p != 0 && p != first })
	win := b.window("(1 of 3)")
	b.d.screenshot(t, "app-restarted.png")
	if rs := b.pending(); len(rs) != 3 {
		t.Fatalf("%d requests pending after the restart, want 3", len(rs))
	}
	b.key(win, "alt+o")
	select {
	case ans := <-answer:
		if ans.Decision != guard.Allow {
			t.Fatalf("the waiting call was answered %+v", ans)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the waiting call was never answered")
	}
	b.waitPending(2)
	b.window("(1 of 2)")
}
