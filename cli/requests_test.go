package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"pathgrant/apiclient"
	"pathgrant/appdirs"
	"pathgrant/engine"
	"pathgrant/grants"
	"pathgrant/guard"
	"pathgrant/ipc"
	"pathgrant/ipc/ipctest"
	"pathgrant/wire"
)

// agentEnv makes the test binary play the agent side: "agent" runs a
// child "hook", which sends one check to the daemon. The daemon records the
// hook and the agent as agent processes, and not this test process, which
// may then decide as the user would.
const agentEnv = "PATHGRANT_TEST_AGENT"

// TestMain points the default socket at a path where nothing listens, so
// no test reaches a daemon the developer runs, and dispatches the agent
// helper modes.
func TestMain(m *testing.M) {
	if mode := os.Getenv(agentEnv); mode != "" {
		os.Exit(agentMain(mode))
	}
	os.Setenv(appdirs.SocketEnv, filepath.Join(os.TempDir(), fmt.Sprintf("pathgrant-test-%d-none", os.Getpid()), "none.sock"))
	code := m.Run()
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
	if goSeed.dir != "" {
		os.RemoveAll(goSeed.dir)
	}
	os.Exit(code)
}

func agentMain(mode string) int {
	if strings.HasPrefix(mode, "escape-") {
		return escapeMain(mode)
	}
	if mode == "cli" {
		// a pathgrant command run by a process below the daemon, its
		// standard input the answer
		answer, err := io.ReadAll(os.Stdin)
		if err != nil {
			fmt.Fprintln(os.Stderr, "stdin:", err)
			return 1
		}
		r := daemonCmd(string(answer), false, nil, strings.Split(os.Getenv(cliArgsEnv), "\x1f")...)
		fmt.Fprint(os.Stdout, r.stdout)
		fmt.Fprint(os.Stderr, r.stderr)
		return r.code
	}
	if mode == "agent" {
		hook := exec.Command(os.Args[0], "-test.run=^$")
		hook.Env = append(os.Environ(), agentEnv+"=hook")
		hook.Stdout, hook.Stderr = os.Stdout, os.Stderr
		if err := hook.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "hook:", err)
			return 1
		}
		return 0
	}
	return hookMain()
}

// hookMain sends the check of PATHGRANT_TEST_PATH, or PATHGRANT_TEST_CALLS
// identical ones at once, each waiting PATHGRANT_TEST_WAIT ms for the
// person, and prints each answer as one JSON line.
func hookMain() int {
	calls, _ := strconv.Atoi(os.Getenv("PATHGRANT_TEST_CALLS"))
	waitMS, _ := strconv.Atoi(os.Getenv("PATHGRANT_TEST_WAIT"))
	answers, errs := make(chan wire.Answer, max(calls, 1)), make(chan error, max(calls, 1))
	var wg sync.WaitGroup
	for range max(calls, 1) {
		wg.Go(func() {
			ans, err := sendCheck(os.Getenv("PATHGRANT_TEST_SOCKET"), os.Getenv("PATHGRANT_TEST_SESSION"),
				os.Getenv("PATHGRANT_TEST_TOKEN"), os.Getenv("PATHGRANT_TEST_PATH"), waitMS)
			answers <- ans
			errs <- err
		})
	}
	wg.Wait()
	close(answers)
	close(errs)
	for err := range errs {
		if err != nil {
			fmt.Fprintln(os.Stderr, "check:", err)
			return 1
		}
	}
	enc := json.NewEncoder(os.Stdout)
	for ans := range answers {
		if err := enc.Encode(ans); err != nil {
			return 1
		}
	}
	return 0
}

func sendCheck(sock, session, token, path string, waitMS int) (wire.Answer, error) {
	c := apiclient.New(sock)
	c.Session, c.Token = session, token
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second+time.Duration(waitMS)*time.Millisecond)
	defer cancel()
	return c.Check(ctx, wire.CheckRequest{Op: guard.OpRead, Path: path, WaitMS: waitMS})
}

// daemonEnv is a real daemon, served from this process on a socket in a
// temporary folder, with a registered interactive session.
type daemonEnv struct {
	root, home, work, dl, sock string
	store                      *grants.Store
	srv                        *ipc.Server
	sess                       wire.SessionResponse
	person                     *ipctest.Person // reads each request's code off the daemon's log line
}

func newDaemonEnv(t *testing.T) *daemonEnv {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	e := &daemonEnv{root: root, home: root + "/home", sock: root + "/run/pathgrant.sock", person: &ipctest.Person{}}
	e.work, e.dl = e.home+"/work", e.home+"/Downloads"
	for _, f := range []string{e.work + "/main.go", e.dl + "/report.csv", e.dl + "/other.csv"} {
		writeTestFile(t, f, "a,b\n")
	}
	t.Setenv("XDG_CONFIG_HOME", "")
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	storePath := root + "/state/pathgrant.db"
	e.store, err = grants.Open(storePath, grants.Options{MachineID: "test", NoWatch: true, SweepEvery: time.Minute, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	e.srv = ipc.New(ipc.Config{HooksBelow: true, Store: e.store, Home: e.home, Logger: quiet, Approver: e.person.Approver(),
		Device: engine.DefaultDevicePolicy(os.Getenv, e.home, storePath, e.sock)})
	e.serve(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	e.sess, err = apiclient.New(e.sock).Register(ctx, wire.SessionRequest{Agent: "test-agent", Cwd: e.work, Workspace: []string{e.work}})
	if err != nil {
		t.Fatalf("register: %v", err)
	}
	return e
}

func (e *daemonEnv) serve(t *testing.T) {
	t.Helper()
	t.Cleanup(func() { e.store.Close() }) // runs after the server's shutdown (cleanups are LIFO)
	ipctest.Serve(t, e.srv, e.sock)
}

// requestFromAgent has a separate agent process (this binary, re-run)
// read a Downloads file through its hook; it returns the pending request.
func (e *daemonEnv) requestFromAgent(t *testing.T, name string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), agentEnv+"=agent", "PATHGRANT_TEST_SOCKET="+e.sock,
		"PATHGRANT_TEST_SESSION="+e.sess.ID, "PATHGRANT_TEST_TOKEN="+e.sess.Token, "PATHGRANT_TEST_PATH="+e.dl+"/"+name)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("agent helper: %v: %s", err, stderr.String())
	}
	return pendingOf(t, out)
}

// cliArgsEnv carries the arguments of the "cli" mode, separated by the unit separator (US, 0x1f).
const cliArgsEnv = "PATHGRANT_TEST_ARGS"

// belowDaemon runs a decision command in a child of this process, which
// hosts the daemon: a process the daemon's own tools could have started,
// so its decisions are refused. stdin is its standard input.
func belowDaemon(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Stdin = strings.NewReader(stdin)
	cmd.Env = append(os.Environ(), agentEnv+"=cli", cliArgsEnv+"="+strings.Join(args, "\x1f"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return result{cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()}
}

func pendingOf(t *testing.T, answer []byte) string {
	t.Helper()
	var ans wire.Answer
	if err := json.Unmarshal(answer, &ans); err != nil {
		t.Fatalf("answer %q: %v", answer, err)
	}
	if ans.Decision != guard.Deny || ans.Pending == "" {
		t.Fatalf("check answered %+v, want a denial with a pending request", ans)
	}
	return ans.Pending
}

func (e *daemonEnv) request(t *testing.T, id string) wire.Request {
	t.Helper()
	r, ok := e.srv.Engine().Request(id) // the person, in the app
	if !ok {
		t.Fatalf("no request %s", id)
	}
	return r
}

func (e *daemonEnv) grants(t *testing.T) []grants.Grant {
	t.Helper()
	gs, err := e.store.List(grants.Filter{IncludeRevoked: true, IncludeExpired: true})
	if err != nil {
		t.Fatal(err)
	}
	return gs
}

func writeTestFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// daemonCmd runs one of the daemon commands in-process, with answer as what
// the user types at a terminal (tty false: stdin is not a terminal).
func daemonCmd(answer string, tty bool, question *bytes.Buffer, args ...string) result {
	return run(func(a []string, o, e *bytes.Buffer) int {
		switch a[0] {
		case "pending":
			return runPending(a[1:], o, e)
		case "deny":
			return runDeny(a[1:], o, e)
		}
		return runApprove(a[1:], o, e, confirmer{in: strings.NewReader(answer), out: question, tty: tty})
	}, args...)
}

func TestPendingCommand(t *testing.T) {
	e := newDaemonEnv(t)
	if r := daemonCmd("", false, nil, "pending", "--json", "--socket", e.sock).ok(t); r.stdout != "[]\n" {
		t.Errorf("pending --json with nothing pending = %q, want []", r.stdout)
	}
	if r := daemonCmd("", false, nil, "pending", "--socket", e.sock).ok(t); !strings.Contains(r.stdout, "no pending") {
		t.Errorf("pending with nothing pending = %q", r.stdout)
	}
	id := e.requestFromAgent(t, "report.csv")
	var listed []map[string]any
	out := daemonCmd("", false, nil, "pending", "--json", "--socket", e.sock).ok(t).stdout
	if err := json.Unmarshal([]byte(out), &listed); err != nil || len(listed) != 1 {
		t.Fatalf("pending --json = %q (%v), want one request", out, err)
	}
	want := map[string]any{"id": id, "session": e.sess.ID, "op": "read", "path": e.dl + "/report.csv", "count": 1.0}
	for k, v := range want {
		if listed[0][k] != v {
			t.Errorf("pending --json %s = %v, want %v", k, listed[0][k], v)
		}
	}
	table := daemonCmd("", false, nil, "pending", "--socket", e.sock).ok(t).stdout
	for _, s := range []string{"ID", "SESSION", "AGE", id, e.sess.ID[:8], e.dl + "/report.csv"} {
		if !strings.Contains(table, s) {
			t.Errorf("pending table lacks %q:\n%s", s, table)
		}
	}
	if r := daemonCmd("", false, nil, "pending", "extra", "--socket", e.sock); r.code != 2 {
		t.Errorf("pending with an argument: exit %d, want 2", r.code)
	}
}

func TestDecisionCommands(t *testing.T) {
	tests := []struct {
		name     string
		from     string // who asked: "agent" (a separate process), "" nobody
		below    bool   // the command runs below the daemon (belowDaemon)
		args     []string
		tty      bool
		answer   string
		code     int
		stdout   string
		stderr   string
		question string
		state    string // the request's state afterwards
		grant    guard.GrantKind
	}{
		{name: "approve --yes, the code on stdin", from: "agent", args: []string{"approve", "{id}", "--scope", "session", "--yes"}, answer: "{code:session}\n",
			stdout: "approved", state: wire.StateApproved, grant: guard.KindFile},
		{name: "approve device folder", from: "agent", args: []string{"approve", "{id}", "--scope", "device", "--folder", "--yes"}, answer: "{code:device+folder}",
			stdout: "scope device", state: wire.StateApproved, grant: guard.KindFolder},
		{name: "code in lower case", from: "agent", args: []string{"approve", "{id}", "--scope", "once", "--yes"}, answer: "{lowercode}\n",
			stdout: "approved", state: wire.StateApproved, grant: guard.KindFile},
		{name: "--code on the command line", from: "agent", args: []string{"approve", "{id}", "--scope", "once", "--yes", "--code", "{code}"},
			code: 2, stderr: "--code is refused: a command line is readable by every process of yours (/proc/PID/cmdline)", state: wire.StatePending},
		{name: "-code= on the command line", from: "agent", args: []string{"approve", "{id}", "-code={code}", "--scope", "once", "--yes"}, answer: "{code}\n",
			code: 2, stderr: "--code is refused", state: wire.StatePending},
		{name: "no --yes and no terminal", from: "agent", args: []string{"approve", "{id}", "--scope", "once"}, answer: "{code}\n",
			code: 2, stderr: "pass --yes", state: wire.StatePending},
		{name: "no code and no terminal", from: "agent", args: []string{"approve", "{id}", "--scope", "once", "--yes"},
			code: 2, stderr: "no approval code on standard input", state: wire.StatePending},
		{name: "wrong code", from: "agent", args: []string{"approve", "{id}", "--scope", "once", "--yes"}, answer: "ABCDEFGH\n",
			code: 1, stderr: "wrong approval code", state: wire.StatePending},
		{name: "the once code for the session", from: "agent", args: []string{"approve", "{id}", "--scope", "session", "--yes"}, answer: "{code}\n",
			code: 1, stderr: "that code approves --scope once only", state: wire.StatePending},
		{name: "the file's code for the folder", from: "agent", args: []string{"approve", "{id}", "--scope", "device", "--folder", "--yes"}, answer: "{code:device}\n",
			code: 1, stderr: "that code approves --scope device only", state: wire.StatePending},
		{name: "an hour's code for longer", from: "agent", args: []string{"approve", "{id}", "--scope", "session", "--for", "2h", "--yes"}, answer: "{code:session+1h}\n",
			code: 1, stderr: "not --scope session --for 2h", state: wire.StatePending},
		{name: "an hour's code for less", from: "agent", args: []string{"approve", "{id}", "--scope", "session", "--for", "30m", "--yes"}, answer: "{code:session+1h}\n",
			stdout: "for 30m", state: wire.StateApproved, grant: guard.KindFile},
		{name: "only the first line of stdin", from: "agent", args: []string{"approve", "{id}", "--scope", "once", "--yes"}, answer: "ABCDEFGH\n{code}\n",
			code: 1, stderr: "wrong approval code", state: wire.StatePending},
		{name: "confirmed at the terminal", from: "agent", args: []string{"approve", "{id}", "--scope", "session"}, tty: true, answer: "y\n{code:session}\n",
			question: "Allow read {dl}/report.csv until the session ends? [y/N]", stdout: "approved", state: wire.StateApproved, grant: guard.KindFile},
		{name: "code asked at the terminal", from: "agent", args: []string{"approve", "{id}", "--scope", "once", "--yes"}, tty: true, answer: "{code}\n",
			question: "Approval code of once for {id}", stdout: "approved", state: wire.StateApproved, grant: guard.KindFile},
		{name: "no code typed", from: "agent", args: []string{"approve", "{id}", "--scope", "once", "--yes"}, tty: true, answer: "\n",
			code: 1, stderr: "no approval code", state: wire.StatePending},
		{name: "yes in full", from: "agent", args: []string{"approve", "{id}", "--scope", "once"}, tty: true, answer: " YES \n{code}\n",
			state: wire.StateApproved, grant: guard.KindFile},
		{name: "declined at the terminal", from: "agent", args: []string{"approve", "{id}", "--scope", "session", "--folder"}, tty: true, answer: "n\n",
			question: "Allow read {dl}/ (the folder", code: 1, stderr: "not approved", state: wire.StatePending},
		{name: "no answer declines", from: "agent", args: []string{"approve", "{id}", "--scope", "session"}, tty: true,
			code: 1, stderr: "not approved", state: wire.StatePending},
		{name: "deny", from: "agent", args: []string{"deny", "{id}"}, stdout: "denied", state: wire.StateDenied},
		{name: "approve unknown id", args: []string{"approve", "nope", "--scope", "once", "--yes"}, answer: "ABCDEFGH\n", code: 1, stderr: "no approval request nope"},
		{name: "confirm unknown id", args: []string{"approve", "nope", "--scope", "once"}, tty: true, answer: "y\n", code: 1, stderr: "no approval request nope"},
		{name: "deny unknown id", args: []string{"deny", "nope"}, code: 1, stderr: "no approval request nope"},
		{name: "bad scope", from: "agent", args: []string{"approve", "{id}", "--scope", "deny", "--yes"}, code: 2, stderr: "--scope", state: wire.StatePending},
		{name: "no id", args: []string{"approve", "--scope", "once", "--yes"}, code: 2, stderr: "exactly one request ID"},
		{name: "deny two ids", args: []string{"deny", "a", "b"}, code: 2, stderr: "exactly one request ID"},
		{name: "agent approving itself", from: "agent", below: true, args: []string{"approve", "{id}", "--scope", "session", "--yes"}, answer: "{code:session}\n",
			code: 1, stderr: "refused", state: wire.StatePending},
		{name: "agent denying", from: "agent", below: true, args: []string{"deny", "{id}"}, code: 1, stderr: "refused", state: wire.StatePending},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newDaemonEnv(t)
			id := ""
			switch tc.from {
			case "agent":
				id = e.requestFromAgent(t, "report.csv")
			}
			code, pairs := "", []string{}
			if id != "" {
				code = e.person.Code(t, id)
				for _, key := range []string{"session", "device", "device+folder", "session+1h"} {
					pairs = append(pairs, "{code:"+key+"}", e.person.CodeFor(t, id, key))
				}
			}
			subst := strings.NewReplacer(append(pairs, "{id}", id, "{dl}", e.dl, "{code}", code, "{lowercode}", strings.ToLower(code))...)
			args := append([]string{}, tc.args...)
			for i := range args {
				args[i] = subst.Replace(args[i])
			}
			var question bytes.Buffer
			var r result
			if tc.below {
				r = belowDaemon(t, subst.Replace(tc.answer), append(args, "--socket", e.sock)...)
			} else {
				r = daemonCmd(subst.Replace(tc.answer), tc.tty, &question, append(args, "--socket", e.sock)...)
			}
			if r.code != tc.code || !strings.Contains(r.stdout, tc.stdout) || !strings.Contains(r.stderr, tc.stderr) {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d, %q, %q", r.code, r.stdout, r.stderr, tc.code, tc.stdout, tc.stderr)
			}
			if strings.Count(r.stderr, "\n") > 1 {
				t.Errorf("stderr is more than one line: %q", r.stderr)
			}
			if q := subst.Replace(tc.question); !strings.Contains(question.String(), q) {
				t.Errorf("question %q, want %q", question.String(), q)
			}
			e.checkOutcome(t, id, tc.state, tc.grant)
		})
	}
}

// checkOutcome checks the request's state and that a grant of the given
// kind exists, or none when kind is empty.
func (e *daemonEnv) checkOutcome(t *testing.T, id, state string, kind guard.GrantKind) {
	t.Helper()
	if id != "" {
		if r := e.request(t, id); r.State != state {
			t.Errorf("request state %q, want %q", r.State, state)
		}
	}
	gs := e.grants(t)
	switch {
	case kind == "" && len(gs) != 0:
		t.Errorf("grants %+v, want none", gs)
	case kind == "":
	case len(gs) != 1 || gs[0].Kind != kind || gs[0].Op != guard.OpRead:
		t.Errorf("grants %+v, want one %s read grant", gs, kind)
	case kind == guard.KindFolder && gs[0].Path != e.dl:
		t.Errorf("folder grant on %s, want %s", gs[0].Path, e.dl)
	}
}

func TestDaemonCommandsWithoutDaemon(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "none", "pathgrant.sock")
	tests := [][]string{
		{"pending"}, {"pending", "--json"}, {"approve", "abc", "--scope", "once", "--yes"}, {"deny", "abc"},
	}
	for _, args := range tests {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			r := daemonCmd("ABCDEFGH\n", false, nil, append(args, "--socket", sock)...)
			if r.code != 1 || r.stdout != "" {
				t.Errorf("exit %d, stdout %q; want 1 and nothing", r.code, r.stdout)
			}
			if strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, wire.NotRunning(sock)) {
				t.Errorf("stderr %q, want one line naming %s", r.stderr, sock)
			}
		})
	}
	t.Run("default socket", func(t *testing.T) {
		r := daemonCmd("", false, nil, "pending")
		if r.code != 1 || !strings.Contains(r.stderr, appdirs.Socket(os.Getenv)) {
			t.Errorf("exit %d, stderr %q; want 1 naming %s", r.code, r.stderr, appdirs.Socket(os.Getenv))
		}
	})
}

// TestGrantsThroughDaemon runs the grants and audit commands while a daemon
// owns the store: they go through it, with the same output as on the file.
func TestGrantsThroughDaemon(t *testing.T) {
	e := newDaemonEnv(t)
	id := e.requestFromAgent(t, "report.csv")
	daemonCmd(e.person.CodeFor(t, id, "session"), false, nil, "approve", id, "--scope", "session", "--yes", "--socket", e.sock).ok(t)
	other := e.requestFromAgent(t, "other.csv")
	daemonCmd(e.person.CodeFor(t, other, "device"), false, nil, "approve", other, "--scope", "device", "--yes", "--socket", e.sock).ok(t)
	granted := e.grants(t)
	if len(granted) != 2 {
		t.Fatalf("grants %+v, want 2", granted)
	}
	g := granted[0].ID
	viaSocket := []string{"--socket", e.sock}

	live := ids(jsonLines[listed](t, grantsCmd(append([]string{"list", "--json"}, viaSocket...)...).ok(t).stdout))
	if len(live) != 2 || live[g] != "live" {
		t.Errorf("list --json through the daemon = %v", live)
	}
	if text := grantsCmd(append([]string{"list"}, viaSocket...)...).ok(t).stdout; !strings.Contains(text, g) || !strings.Contains(text, "SCOPE") {
		t.Errorf("list through the daemon:\n%s", text)
	}
	if r := grantsCmd(append([]string{"revoke", g}, viaSocket...)...).ok(t); r.stdout != "revoked "+g+"\n" {
		t.Errorf("revoke through the daemon printed %q", r.stdout)
	}
	all := ids(jsonLines[listed](t, grantsCmd(append([]string{"list", "--all", "--json"}, viaSocket...)...).ok(t).stdout))
	if all[g] != "revoked" || len(all) != 2 {
		t.Errorf("list --all after revoke = %v", all)
	}
	errCases := []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"revoke", g}, 1, "has ended"},
		{[]string{"revoke", "g-nope"}, 2, "no grant"},
	}
	for _, c := range errCases {
		if r := grantsCmd(append(c.args, viaSocket...)...); r.code != c.code || !strings.Contains(r.stderr, c.stderr) {
			t.Errorf("grants %v: exit %d, stderr %q; want %d, %q", c.args, r.code, r.stderr, c.code, c.stderr)
		}
	}
	if r := grantsCmd(append([]string{"revoke", "--session", e.sess.ID}, viaSocket...)...).ok(t); !strings.Contains(r.stdout, "revoked 1 grant of") {
		t.Errorf("revoke --session through the daemon printed %q", r.stdout)
	}
	type rec struct {
		Kind  string `json:"kind"`
		Grant string `json:"grant"`
	}
	recs := jsonLines[rec](t, auditCmd(append([]string{"--json", "--session", e.sess.ID}, viaSocket...)...).ok(t).stdout)
	kinds := map[string]int{}
	for _, r := range recs {
		kinds[r.Kind]++
	}
	if kinds["request"] != 2 || kinds["approve"] != 2 || kinds["revoke"] != 2 {
		t.Errorf("audit through the daemon: kinds %v, want 2 requests, approvals and revokes", kinds)
	}
	if text := auditCmd(viaSocket...).ok(t).stdout; !strings.Contains(text, "approve") || !strings.Contains(text, "REASON") {
		t.Errorf("audit text through the daemon:\n%s", text)
	}
}

// TestGrantsChoosesDaemonOrStore pins which one the grants command uses.
func TestGrantsChoosesDaemonOrStore(t *testing.T) {
	e := newDaemonEnv(t)
	storePath := e.store.Path()
	dead := filepath.Join(t.TempDir(), "dead.sock")
	other := newFixture(t)
	tests := []struct {
		name   string
		env    string // PATHGRANT_SOCKET
		args   []string
		file   bool // the fixture's file was read (the daemon's store has no grants)
		code   int
		stderr string
	}{
		{name: "default socket answers", env: e.sock, args: []string{"list"}},
		{name: "--socket answers", args: []string{"list", "--socket", e.sock}},
		{name: "--store and --socket: the daemon", args: []string{"list", "--store", other.path, "--socket", e.sock}},
		{name: "--store alone names the file", env: e.sock, args: []string{"list", "--store", other.path}, file: true},
		{name: "--store held by the daemon", env: e.sock, args: []string{"list", "--store", storePath},
			code: 1, stderr: "a daemon answers on " + e.sock},
		{name: "dead socket: the file", args: []string{"list", "--socket", dead, "--store", other.path}, file: true},
		{name: "dead socket, store held", args: []string{"list", "--socket", dead, "--store", storePath}, code: 1, stderr: "already running"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.env != "" {
				t.Setenv(appdirs.SocketEnv, tc.env)
			}
			r := grantsCmd(tc.args...)
			if r.code != tc.code || !strings.Contains(r.stderr, tc.stderr) || strings.Count(r.stderr, "\n") > 1 {
				t.Errorf("exit %d, stderr %q; want %d and one line with %q", r.code, r.stderr, tc.code, tc.stderr)
			}
			if got := strings.Contains(r.stdout, other.sess.ID); got != tc.file {
				t.Errorf("stdout %q: read the fixture file = %v, want %v", r.stdout, got, tc.file)
			}
		})
	}
}
