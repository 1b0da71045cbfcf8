package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"pathgrant/apiclient"
	"pathgrant/wire"
)

// Environment of the escape helpers (this test binary, re-run).
const (
	escMethod = "PATHGRANT_TEST_METHOD" // how the agent's child tries to get out of its lineage
	escResult = "PATHGRANT_TEST_RESULT" // where the approver writes what it got
	escID     = "PATHGRANT_TEST_ID"     // the request the approver tries to approve
	escTmux   = "PATHGRANT_TEST_TMUX"   // the tmux server's socket
)

// TestEscapesCannotApprove: a stand-in agent (a process whose hook child
// sent the check) starts a child that leaves its lineage in each way
// known, and that child tries to approve the agent's own pending request
// without the code, with `pathgrant approve` and with a raw HTTP call.
// None approves: the request stays pending and no grant exists.
func TestEscapesCannotApprove(t *testing.T) {
	methods := []struct {
		name, method string
		needs        string // a program that must be installed
	}{
		{"setsid -f", "setsid", "setsid"},
		{"double fork", "doublefork", ""},
		{"tmux server started outside the agent", "tmux", "tmux"},
		{"fd handed to the parent", "handover", ""},
		{"throwaway session", "throwaway", ""},
	}
	for _, m := range methods {
		t.Run(m.name, func(t *testing.T) {
			if m.needs != "" {
				if _, err := exec.LookPath(m.needs); err != nil {
					t.Skipf("%s is not installed, so this escape cannot be tried here", m.needs)
				}
			}
			e := newDaemonEnv(t)
			result := filepath.Join(t.TempDir(), "result")
			env := []string{agentEnv + "=escape-agent", escMethod + "=" + m.method, escResult + "=" + result,
				"PATHGRANT_TEST_SOCKET=" + e.sock, "PATHGRANT_TEST_SESSION=" + e.sess.ID, "PATHGRANT_TEST_TOKEN=" + e.sess.Token,
				"PATHGRANT_TEST_PATH=" + e.dl + "/report.csv", "PATHGRANT_TEST_WORK=" + e.work}
			if m.method == "tmux" {
				env = append(env, escTmux+"="+startOutsideTmux(t))
			}
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), env...)
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("agent: %v: %s", err, errText(err))
			}
			id := strings.TrimSpace(string(out))
			got := waitResult(t, result)
			if !strings.Contains(got, "http=403") {
				t.Errorf("the escaped child's decision got %q, want http=403", got)
			}
			if m.method != "handover" && !strings.Contains(got, "cli=2") {
				t.Errorf("pathgrant approve without a code got %q, want exit 2", got)
			}
			e.checkOutcome(t, id, wire.StatePending, "")
		})
	}
}

func errText(err error) string {
	if ee, ok := err.(*exec.ExitError); ok {
		return string(ee.Stderr)
	}
	return ""
}

// startOutsideTmux starts a tmux server from the test, outside any agent, and
// returns its socket; the server is killed when the test ends.
func startOutsideTmux(t *testing.T) string {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "tmux.sock")
	if out, err := exec.Command("tmux", "-S", sock, "new-session", "-d", "-s", "t", "sleep 600").CombinedOutput(); err != nil {
		t.Skipf("tmux cannot start a server here: %v: %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("tmux", "-S", sock, "kill-server").Run() })
	return sock
}

// waitResult waits for the approver's result file.
func waitResult(t *testing.T, path string) string {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if data, err := os.ReadFile(path); err == nil && strings.HasSuffix(string(data), "\n") {
			return string(data)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("the escaped child never reported")
	return ""
}

// escapeMain runs one escape helper mode.
func escapeMain(mode string) int {
	var err error
	switch mode {
	case "escape-agent":
		err = escapeAgent()
	case "escape-approver":
		err = tryApprove(os.Getenv(escID))
	case "escape-fork":
		err = self("escape-approver", nil).Start() // and exit at once: the approver is orphaned
	case "escape-throwaway":
		err = throwaway()
	case "escape-handover":
		err = handOver()
	default:
		err = fmt.Errorf("unknown mode %q", mode)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, mode+":", err)
		return 1
	}
	return 0
}

// self is this binary in another helper mode, with the request id.
func self(mode string, extra []string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(append(os.Environ(), agentEnv+"="+mode), extra...)
	cmd.Stderr = os.Stderr
	return cmd
}

// escapeAgent is the stand-in agent: its hook child sends the check, then
// it prints the pending request's id and lets a child escape.
func escapeAgent() error {
	hook := self("hook", nil)
	out, err := hook.Output()
	if err != nil {
		return fmt.Errorf("hook: %w", err)
	}
	var ans wire.Answer
	if err := json.Unmarshal(out, &ans); err != nil || ans.Pending == "" {
		return fmt.Errorf("hook answered %s", out)
	}
	fmt.Println(ans.Pending)
	idEnv := []string{escID + "=" + ans.Pending}
	switch os.Getenv(escMethod) {
	case "setsid":
		cmd := exec.Command("setsid", "-f", os.Args[0], "-test.run=^$")
		cmd.Env = append(append(os.Environ(), agentEnv+"=escape-approver"), idEnv...)
		return cmd.Run()
	case "doublefork":
		return self("escape-fork", idEnv).Run()
	case "tmux":
		line := fmt.Sprintf("env %s=escape-approver %s=%s %s=%s PATHGRANT_TEST_SOCKET=%s %s -test.run='^$'",
			agentEnv, escID, ans.Pending, escResult, os.Getenv(escResult), os.Getenv("PATHGRANT_TEST_SOCKET"), os.Args[0])
		return exec.Command("tmux", "-S", os.Getenv(escTmux), "new-window", "-d", line).Run()
	case "throwaway":
		return self("escape-throwaway", idEnv).Run()
	case "handover":
		return receiveAndDecide(ans.Pending)
	}
	return fmt.Errorf("unknown method %q", os.Getenv(escMethod))
}

// tryApprove tries the two ways to approve without the code and writes
// what each got: the CLI's exit status and the decision route's status.
func tryApprove(id string) error {
	sock := os.Getenv("PATHGRANT_TEST_SOCKET")
	code := runApprove([]string{id, "--scope", "device", "--folder", "--yes", "--socket", sock}, io.Discard, io.Discard,
		confirmer{in: strings.NewReader(""), out: io.Discard})
	conn, err := net.Dial("unix", sock)
	if err != nil {
		return err
	}
	defer conn.Close()
	status, err := rawDecision(conn, id)
	if err != nil {
		return err
	}
	return os.WriteFile(os.Getenv(escResult), []byte(fmt.Sprintf("cli=%d http=%d\n", code, status)), 0o600)
}

// rawDecision sends an approval without a code on conn and returns the
// status of the answer.
func rawDecision(conn net.Conn, id string) (int, error) {
	body := `{"scope":"device","kind":"folder"}`
	fmt.Fprintf(conn, "POST /v1/requests/%s/decision HTTP/1.1\r\nHost: pathgrant\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
		id, len(body), body)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}

// throwaway registers a session of its own, sends one check for it, ends
// it, waits past the daemon's sweep, and only then tries to approve.
func throwaway() error {
	c := apiclient.New(os.Getenv("PATHGRANT_TEST_SOCKET"))
	cwd, _ := os.Getwd()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// From under an agent a top-level session is refused; a child of the
	// agent's own session is the throwaway it can have.
	if _, err := c.Register(ctx, wire.SessionRequest{Agent: "throwaway", Cwd: cwd, Workspace: []string{cwd}}); err == nil {
		return errors.New("a top-level session was registered from under the agent")
	}
	c.Token = os.Getenv("PATHGRANT_TEST_TOKEN")
	work := os.Getenv("PATHGRANT_TEST_WORK")
	s, err := c.Register(ctx, wire.SessionRequest{Agent: "throwaway", Cwd: work, Workspace: []string{work}, Parent: os.Getenv("PATHGRANT_TEST_SESSION")})
	if err != nil {
		return err
	}
	c.Session, c.Token = s.ID, s.Token
	if _, err := c.Check(ctx, wire.CheckRequest{Op: "read", Path: work}); err != nil {
		return err
	}
	if err := c.EndSession(ctx, s.ID); err != nil {
		return err
	}
	time.Sleep(1200 * time.Millisecond)
	return tryApprove(os.Getenv(escID))
}

// receiveAndDecide starts a child that connects to the daemon and hands
// the connection over; once the child has exited, the agent sends the
// decision on the connection it received.
func receiveAndDecide(id string) error {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		return err
	}
	mine, theirs := os.NewFile(uintptr(fds[0]), "mine"), os.NewFile(uintptr(fds[1]), "theirs")
	defer mine.Close()
	child := self("escape-handover", nil)
	child.ExtraFiles = []*os.File{theirs} // fd 3 in the child
	if err := child.Run(); err != nil {
		return fmt.Errorf("handover child: %w", err)
	}
	theirs.Close()
	buf, oob := make([]byte, 1), make([]byte, unix.CmsgSpace(4))
	_, oobn, _, _, err := unix.Recvmsg(int(mine.Fd()), buf, oob, 0)
	if err != nil {
		return err
	}
	msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
	if err != nil || len(msgs) != 1 {
		return fmt.Errorf("no fd received: %v", err)
	}
	got, err := unix.ParseUnixRights(&msgs[0])
	if err != nil || len(got) != 1 {
		return fmt.Errorf("no fd received: %v", err)
	}
	conn, err := net.FileConn(os.NewFile(uintptr(got[0]), "daemon"))
	if err != nil {
		return err
	}
	defer conn.Close()
	status, err := rawDecision(conn, id)
	if err != nil {
		return err
	}
	return os.WriteFile(os.Getenv(escResult), []byte(fmt.Sprintf("http=%d\n", status)), 0o600)
}

// handOver connects to the daemon, passes the connection's fd to its
// parent over fd 3, and exits.
func handOver() error {
	conn, err := net.Dial("unix", os.Getenv("PATHGRANT_TEST_SOCKET"))
	if err != nil {
		return err
	}
	f, err := conn.(*net.UnixConn).File()
	if err != nil {
		return err
	}
	return unix.Sendmsg(3, []byte{0}, unix.UnixRights(int(f.Fd())), nil, 0)
}
