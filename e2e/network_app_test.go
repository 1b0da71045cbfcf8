package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"

	"pathgrant/apiclient"
	"pathgrant/appdirs"
	"pathgrant/e2e/testhost"
	"pathgrant/engine"
	"pathgrant/grants"
	"pathgrant/guard"
	"pathgrant/prompt"
	"pathgrant/wire"
)

// askPolicy is the device policy that makes every destination a request
// to the person (docs/policy.md, "The network").
const askPolicy = "[network]\nmode = \"ask\"\n"

// testHostBody is what the test host's /hello answers.
const testHostBody = "hello from the test host"

// writeDevicePolicy puts policy where the app's daemon reads the device
// policy in e's home (appdirs.ConfigDir); it refuses to write anywhere
// else, such as a config folder the environment names outside the test.
func writeDevicePolicy(t *testing.T, e appEnv, policy string) {
	t.Helper()
	dir := appdirs.ConfigDir(os.Getenv, e.home)
	if !strings.HasPrefix(dir, e.home+"/") {
		t.Fatalf("the device policy would go in %s, outside the test's home (XDG_CONFIG_HOME is set)", dir)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "policy.toml"), []byte(policy), 0o600); err != nil {
		t.Fatal(err)
	}
}

// appCommand is one command started through `pathgrant exec --session`
// under timeout, which stands for the agent (as agentCheck's curl does):
// the daemon marks it, not the test process, which stays the person.
type appCommand struct {
	cmd  *exec.Cmd
	out  bytes.Buffer // stdout and stderr, the command's and exec's
	done chan struct{}
}

// startAppCommand runs argv confined in the agent's session, in e's
// workspace.
func startAppCommand(t *testing.T, d *desktop, e appEnv, agent *apiclient.Client, argv ...string) *appCommand {
	t.Helper()
	args := append([]string{"120", appBinary(t), "exec", "--session", agent.Session, "--"}, argv...)
	r := &appCommand{cmd: exec.Command("timeout", args...), done: make(chan struct{})}
	r.cmd.Dir = e.work
	r.cmd.Env = append(e.vars(d), appdirs.TokenEnv+"="+agent.Token)
	r.cmd.Stdout, r.cmd.Stderr = &r.out, &r.out
	startGroup(t, r.cmd)
	go func() { _ = r.cmd.Wait(); close(r.done) }()
	return r
}

// running reports whether the command has not ended yet.
func (r *appCommand) running() bool {
	select {
	case <-r.done:
		return false
	default:
		return true
	}
}

// wait waits for the command's end and returns its exit status and
// output.
func (r *appCommand) wait(t *testing.T) (int, string) {
	t.Helper()
	select {
	case <-r.done:
	case <-time.After(30 * time.Second):
		t.Fatalf("the confined command did not end; output so far %q", r.out.String())
	}
	return r.cmd.ProcessState.ExitCode(), r.out.String()
}

// TestNetworkApp is the person's path through the real app for a
// connection: in `ask` mode a confined curl to the test host waits in its
// connect, one request names the destination, the inbox says who wants
// to connect where, and one click decides. "Allow once" lets that same
// curl through; "Deny" makes it fail with one line saying the connection
// was refused.
func TestNetworkApp(t *testing.T) {
	d := startDesktop(t)
	host := testhost.Start(t)
	e := newAppEnv(t)
	writeDevicePolicy(t, e, askPolicy)
	ca, err := os.ReadFile(host.CAFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.work, "ca.pem"), ca, 0o600); err != nil {
		t.Fatal(err)
	}
	startTheApp(t, d, e, "network-app.log")
	person := apiclient.New(e.socket)
	agent := agentSession(t, e)
	dest := host.Addr.String() + ":443"
	curl := []string{"curl", "-fsS", "--cacert", filepath.Join(e.work, "ca.pem"), "https://" + host.Addr.String() + "/hello"}

	for _, row := range []struct {
		name, label string
		allowed     bool   // curl exits 0, else it fails
		want        string // its output, or the one line it holds
	}{
		{"Allow once", prompt.LabelOnce, true, testHostBody},
		{"Deny", prompt.LabelDeny, false, "pathgrant: connect to " + dest + " refused"},
	} {
		t.Run(row.name, func(t *testing.T) {
			run := startAppCommand(t, d, e, agent, curl...)
			time.Sleep(time.Second)
			if !run.running() {
				code, out := run.wait(t)
				t.Fatalf("the curl did not wait for the person: exit %d, %q", code, out)
			}
			req := pendingOne(t, person)
			if req.Op != guard.OpConnect || req.Path != dest || req.Tool != engine.ConnectTool || req.Session != agent.Session {
				t.Fatalf("the pending request %+v, want %s %s by %q", req, guard.OpConnect, dest, engine.ConnectTool)
			}
			win := (&inbox{t: t, d: d, e: e}).window("(1 of 1)")
			assertInboxShows(t, req, windowSize(t, d, win), "Claude wants to connect to", dest)
			assertNotified(t, d, prompt.NoticeGroup(req)+" wants to connect to "+dest)
			d.screenshot(t, "network-app-"+strings.ReplaceAll(strings.ToLower(row.name), " ", "-")+".png")
			clickButton(t, d, win, req, row.label)

			code, out := run.wait(t)
			switch {
			case row.allowed && (code != 0 || strings.TrimSpace(out) != row.want):
				t.Fatalf("after %q: exit %d, output %q, want 0 and %q", row.label, code, out, row.want)
			case !row.allowed && (code == 0 || strings.Count(out, row.want) != 1):
				t.Fatalf("after %q: exit %d, output %q, want a failure and one %q line", row.label, code, out, row.want)
			}
			if st := requestState(t, person, req.ID); row.allowed && st != wire.StateApproved || !row.allowed && st != wire.StateDenied {
				t.Fatalf("request %s after %q", st, row.label)
			}
		})
	}

	recs, err := person.Audit(context.Background(), grants.AuditFilter{Session: agent.Session})
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[grants.Kind]int{}
	for _, r := range recs {
		if r.Op == guard.OpConnect && r.Path == dest {
			kinds[r.Kind]++
			if r.Kind == grants.KindApprove && (r.Scope != grants.ScopeOnce || r.Grant == "") {
				t.Errorf("the approval's record %+v, want a once grant", r)
			}
		}
	}
	if kinds[grants.KindApprove] != 1 || kinds[grants.KindDeny] != 1 {
		t.Fatalf("audit records of %s: %v, want one approval and one denial (all: %+v)", dest, kinds, recs)
	}
}

// assertInboxShows checks that the dialog the inbox window shows for req,
// laid out at the window's size as clickButton lays it out, holds each of
// texts as one of its texts (a label's line, the heading). The window's
// pixels cannot be read back as text here: this is the app's own dialog
// for the request the window is titled with, and clickButton's click
// landing where that layout puts the button shows the window is laid out
// the same.
func assertInboxShows(t *testing.T, req wire.Request, size fyne.Size, texts ...string) {
	t.Helper()
	a := test.NewTempApp(t)
	a.Settings().SetTheme(theme.DefaultTheme())
	dlg := prompt.NewDialog(req, func(wire.Decision) {})
	w := test.NewTempWindow(t, dlg.Content())
	w.Resize(size)
	w.Resize(size.AddWidthHeight(0, 1))
	w.Resize(size)
	test.LaidOutObjects(w.Content())
	for _, want := range texts {
		if _, ok := textAt(w.Content(), want, fyne.Position{}); !ok {
			t.Errorf("the inbox for %s %s shows no %q", req.Op, req.Path, want)
		}
	}
}

// assertNotified waits for a notification of the app's whose body holds
// body, in dunst's history (close-all moves the shown ones there).
func assertNotified(t *testing.T, d *desktop, body string) {
	t.Helper()
	waitUntil(t, 10*time.Second, fmt.Sprintf("a notification %q", body), func() bool {
		if d.command("dunstctl", "close-all").Run() != nil {
			return false
		}
		out, err := d.command("dunstctl", "history").Output()
		return err == nil && strings.Contains(string(out), body)
	})
}
