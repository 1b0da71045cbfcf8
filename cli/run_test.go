package cli

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"pathgrant/apiclient"
	"pathgrant/grants"
	"pathgrant/guard"
	"pathgrant/ipc"
	"pathgrant/wire"
)

// launchEnvT is a daemon on a real socket and a workspace to run in.
type launchEnvT struct {
	root, home, work, sock string
	client                 *apiclient.Client
}

func newLaunchEnv(t *testing.T) launchEnvT {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	e := launchEnvT{root: root, home: root + "/home", work: root + "/home/work", sock: root + "/run/pathgrant.sock"}
	if err := os.MkdirAll(e.work+"/sub", 0o700); err != nil {
		t.Fatal(err)
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	store, err := grants.Open(root+"/state/pathgrant.db", grants.Options{MachineID: "m", NoWatch: true, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	srv := ipc.New(ipc.Config{HooksBelow: true, Store: store, Home: e.home, Logger: quiet,
		Device: guard.DevicePolicy{EligibleReadOnly: []string{e.home + "/Downloads"}, Protected: []string{root + "/state", root + "/run"}}})
	ln, err := ipc.Listen(e.sock)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
		<-done
		store.Close()
	})
	e.client = apiclient.New(e.sock)
	return e
}

func (e launchEnvT) policy(id, token string) (wire.Policy, error) {
	c := apiclient.New(e.sock)
	c.Session, c.Token = id, token
	return c.Policy(context.Background())
}

type launchResult struct {
	code           int
	stdout, stderr string
}

func runLaunch(args ...string) launchResult {
	var out, errb bytes.Buffer
	code := runLauncher(args, &out, &errb)
	return launchResult{code, out.String(), errb.String()}
}

// reportAndWait is a command that writes the session it was given to
// $LAUNCH_OUT, waits for $LAUNCH_GO to exist, and exits 7.
const reportAndWait = `printf '%s\n%s\n%s\n' "$PATHGRANT_SESSION" "$PATHGRANT_TOKEN" "$PATHGRANT_SOCKET" > "$LAUNCH_OUT.tmp" &&
mv "$LAUNCH_OUT.tmp" "$LAUNCH_OUT"; while [ ! -e "$LAUNCH_GO" ]; do sleep 0.02; done; exit 7`

// waitReport returns the session, token and socket the command reported.
func waitReport(t *testing.T, path string) (string, string, string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if data, err := os.ReadFile(path); err == nil {
			f := strings.Split(strings.TrimSpace(string(data)), "\n")
			if len(f) == 3 {
				return f[0], f[1], f[2]
			}
			t.Fatalf("report %q", data)
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the command never reported its session")
	return "", "", ""
}

func TestRunSessionLifecycle(t *testing.T) {
	e := newLaunchEnv(t)
	out, goFile := e.root+"/out", e.root+"/go"
	t.Setenv("LAUNCH_OUT", out)
	t.Setenv("LAUNCH_GO", goFile)
	t.Setenv("PATHGRANT_SESSION", "")
	t.Setenv("PATHGRANT_TOKEN", "")
	done := make(chan launchResult, 1)
	go func() {
		done <- runLaunch("--workspace", e.work, "--read-only", e.home+"/docs", "--socket", e.sock, "--", "/bin/sh", "-c", reportAndWait)
	}()
	id, token, sock := waitReport(t, out)
	if sock != e.sock || id == "" || token == "" {
		t.Fatalf("the command got session %q token %q socket %q", id, token, sock)
	}
	pol, err := e.policy(id, token)
	if err != nil {
		t.Fatalf("the session is not live while the command runs: %v", err)
	}
	if !slices.Equal(pol.Workspace, []string{e.work}) || !slices.Equal(pol.ReadOnly, []string{e.home + "/docs"}) {
		t.Errorf("policy workspace %v read-only %v", pol.Workspace, pol.ReadOnly)
	}
	if err := os.WriteFile(goFile, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	res := <-done
	if res.code != 7 {
		t.Errorf("exit %d (stderr %q), want the command's 7", res.code, res.stderr)
	}
	var ae *wire.DaemonError
	if _, err := e.policy(id, token); !errors.As(err, &ae) || ae.Status != http.StatusGone {
		t.Errorf("the session outlived the command: %v", err)
	}
}

func TestRunNestedIsAChildSession(t *testing.T) {
	e := newLaunchEnv(t)
	parent, err := e.client.Register(context.Background(), wire.SessionRequest{Agent: "outer", Cwd: e.work, Workspace: []string{e.work}})
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATHGRANT_SESSION", parent.ID)
	t.Setenv("PATHGRANT_TOKEN", parent.Token)

	marker := e.root + "/ran"
	if err := os.MkdirAll(e.root+"/other", 0o700); err != nil {
		t.Fatal(err)
	}
	res := runLaunch("--workspace", e.root+"/other", "--socket", e.sock, "--", "/bin/sh", "-c", "touch "+marker)
	if res.code != 1 || !strings.Contains(res.stderr, "outside the parent session") {
		t.Errorf("a child wider than its parent: exit %d %q", res.code, res.stderr)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the command ran without a session")
	}

	out, goFile := e.root+"/out", e.root+"/go"
	t.Setenv("LAUNCH_OUT", out)
	t.Setenv("LAUNCH_GO", goFile)
	done := make(chan launchResult, 1)
	go func() {
		done <- runLaunch("--workspace", e.work+"/sub", "--socket", e.sock, "--", "/bin/sh", "-c", reportAndWait)
	}()
	id, token, _ := waitReport(t, out)
	if id == parent.ID || token == parent.Token {
		t.Error("the nested command was given the parent's session")
	}
	pol, err := e.policy(id, token)
	if err != nil || !slices.Equal(pol.Workspace, []string{e.work + "/sub"}) {
		t.Errorf("child policy %+v %v", pol, err)
	}
	os.WriteFile(goFile, nil, 0o600)
	if res := <-done; res.code != 7 {
		t.Errorf("exit %d %q", res.code, res.stderr)
	}
	if _, err := e.policy(parent.ID, parent.Token); err != nil {
		t.Errorf("ending the child ended the parent: %v", err)
	}
}

func TestRunRefusesAndReports(t *testing.T) {
	e := newLaunchEnv(t)
	t.Setenv("PATHGRANT_SESSION", "")
	marker := e.root + "/ran"
	cases := []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"no command", []string{"--socket", e.sock}, 2, "", "no command to run"},
		{"help", []string{"--help"}, 0, "usage: pathgrant run", ""},
		{"unknown flag", []string{"--nope", "--", "true"}, 2, "", "flag provided but not defined"},
		{"no daemon", []string{"--socket", e.root + "/nobody.sock", "--", "/bin/sh", "-c", "touch " + marker}, 1, "",
			wire.NotRunning(e.root + "/nobody.sock")},
		{"workspace holding the home folder", []string{"--workspace", e.root, "--socket", e.sock, "--", "/bin/sh", "-c", "touch " + marker}, 1, "",
			"contains the home folder"},
		{"command not found", []string{"--workspace", e.work, "--socket", e.sock, "--", e.root + "/no-such-command"}, 127, "", "no such file"},
		{"command killed by a signal", []string{"--workspace", e.work, "--socket", e.sock, "--", "/bin/sh", "-c", "kill -TERM $$"}, 143, "", ""},
		{"command succeeds", []string{"--workspace", e.work, "--socket", e.sock, "--", "/bin/sh", "-c", "exit 0"}, 0, "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := runLaunch(tc.args...)
			if res.code != tc.code || !strings.Contains(res.stdout, tc.stdout) || !strings.Contains(res.stderr, tc.stderr) ||
				tc.stderr == "" && res.stderr != "" {
				t.Errorf("exit %d stdout %q stderr %q; want exit %d, %q, %q", res.code, res.stdout, res.stderr, tc.code, tc.stdout, tc.stderr)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Error("the command ran without a session")
			}
		})
	}
}

func TestRunEnvironment(t *testing.T) {
	env := launchEnv([]string{"PATH=/bin", "PATHGRANT_SESSION=old", "PATHGRANT_TOKEN=old", "PATHGRANT_SOCKET=/old", "PATHGRANT_WAIT_MS=10"},
		wire.SessionResponse{ID: "s1", Token: "t1"}, "/run/p.sock")
	want := []string{"PATH=/bin", "PATHGRANT_WAIT_MS=10", "PATHGRANT_SESSION=s1", "PATHGRANT_TOKEN=t1", "PATHGRANT_SOCKET=/run/p.sock"}
	if !slices.Equal(env, want) {
		t.Errorf("env %v, want %v", env, want)
	}
}

// policyStatus is a python3 program that asks the daemon on $1 for the
// policy of session $2 with no token and prints the HTTP status: what a
// process does whose client stripped PATHGRANT_TOKEN from its environment
// (Gemini CLI does so for the MCP servers it starts).
const policyStatus = `import http.client, socket, sys
class C(http.client.HTTPConnection):
    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX); self.sock.connect(sys.argv[1])
c = C("pathgrant"); c.request("GET", "/v1/policy", headers={"X-Session-ID": sys.argv[2]})
print(c.getresponse().status)`

// TestRunTokenlessDescendant: a descendant of `pathgrant run` that lost
// the token still acts as its session (the launcher binds it); a process
// outside the launcher's lineage presenting the same id without the token
// is refused as forged.
func TestRunTokenlessDescendant(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed: it plays the tokenless client")
	}
	e := newLaunchEnv(t)
	bin := buildBinary(t)
	prog := filepath.Join(e.root, "status.py")
	if err := os.WriteFile(prog, []byte(policyStatus), 0o600); err != nil {
		t.Fatal(err)
	}
	out, goFile, inside := e.root+"/out", e.root+"/go", e.root+"/inside"
	script := `python3 "$PROG" "$PATHGRANT_SOCKET" "$PATHGRANT_SESSION" > "$INSIDE.tmp" && mv "$INSIDE.tmp" "$INSIDE"; ` + reportAndWait
	cmd := exec.Command(bin, "run", "--workspace", e.work, "--socket", e.sock, "--", "/bin/sh", "-c", script)
	cmd.Env = append(os.Environ(), "LAUNCH_OUT="+out, "LAUNCH_GO="+goFile, "INSIDE="+inside, "PROG="+prog,
		"PATHGRANT_SESSION=", "PATHGRANT_TOKEN=")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.WriteFile(goFile, nil, 0o600); _ = cmd.Wait() })
	id, _, _ := waitReport(t, out)
	got, err := os.ReadFile(inside)
	if err != nil || strings.TrimSpace(string(got)) != "200" {
		t.Errorf("the launcher's descendant without the token got %q (%v), want 200", got, err)
	}
	var ae *wire.DaemonError
	if _, err := e.policy(id, ""); !errors.As(err, &ae) || ae.Status != http.StatusForbidden {
		t.Errorf("a process outside the launcher's lineage without the token: %v, want 403", err)
	}
	if _, err := e.policy(id, "not-the-token"); !errors.As(err, &ae) || ae.Status != http.StatusForbidden {
		t.Errorf("a wrong token: %v, want 403", err)
	}
}
