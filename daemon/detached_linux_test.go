package daemon

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"pathgrant/apiclient"
	"pathgrant/guard"
	"pathgrant/ipc"
	"pathgrant/ipc/ipctest"
	"pathgrant/wire"
)

// TestDetachedProcessCannotDecide is the incident: a process a tool call
// detached (`setsid -f`) posts a decision with the request's valid code.
// The daemon, its subreaper, keeps it below itself, so the decision is
// refused as one from its tools' processes and the request stays pending;
// the same code from the person (not below the daemon) is accepted.
func TestDetachedProcessCannotDecide(t *testing.T) {
	curl, err := exec.LookPath("curl")
	if err != nil {
		t.Skip("needs curl")
	}
	startReaper(t)
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home, sock := root+"/home", root+"/run/pathgrant.sock"
	for _, f := range []string{home + "/work/main.go", home + "/Downloads/report.csv"} {
		if err := os.MkdirAll(filepath.Dir(f), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	person := &ipctest.Person{}
	srv := ipc.New(ipc.Config{Store: ipctest.OpenStore(t, root+"/state/pathgrant.db"), Home: home, Logger: quiet, Approver: person.Approver(),
		Device: guard.DevicePolicy{EligibleReadOnly: []string{home + "/Downloads"}, Protected: []string{root + "/state", root + "/run"}}})
	ipctest.Serve(t, srv, sock)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	sess, err := apiclient.New(sock).Register(ctx, wire.SessionRequest{Agent: "a", Cwd: home + "/work", Workspace: []string{home + "/work"}})
	if err != nil {
		t.Fatal(err)
	}
	// The agent's read of a Downloads file, from a process of its own.
	out, err := exec.Command(curl, "-sS", "--unix-socket", sock, "-H", wire.HeaderSession+": "+sess.ID, "-H", wire.HeaderToken+": "+sess.Token,
		"-d", `{"op":"read","path":"`+home+`/Downloads/report.csv"}`, "http://pathgrant/v1/check").Output()
	var ans wire.Answer
	if err != nil || json.Unmarshal(out, &ans) != nil || ans.Pending == "" {
		t.Fatalf("check: %v %s", err, out)
	}
	code := person.CodeFor(t, ans.Pending, "session")
	decision := `{"scope":"session","code":"` + code + `"}`
	result := root + "/result"
	script := curl + ` -s --unix-socket "$SOCK" -d "$DECISION" -w '\n%{http_code}' "http://pathgrant/v1/requests/$ID/decision" > "$OUT.tmp"; mv "$OUT.tmp" "$OUT"`
	detach := exec.Command("/bin/sh", "-c", `setsid -f /bin/sh -c "$0" >/dev/null 2>&1`, script)
	detach.Env = append(os.Environ(), "SOCK="+sock, "DECISION="+decision, "ID="+ans.Pending, "OUT="+result)
	if out, err := detach.CombinedOutput(); err != nil {
		t.Fatalf("detach: %v %s", err, out)
	}
	got := waitFile(t, result)
	if !strings.HasSuffix(got, "\n403") || !strings.Contains(got, "started by the daemon's own tools") {
		t.Fatalf("detached decision answered %q, want 403 as the daemon's tools' process", got)
	}
	if r, _ := srv.Engine().Request(ans.Pending); r.State != wire.StatePending {
		t.Fatalf("request %s after the detached decision, want pending", r.State)
	}
	r, err := apiclient.New(sock).Decide(ctx, ans.Pending, wire.Decision{Scope: "session", Code: code})
	if err != nil || r.State != wire.StateApproved || r.Grant == "" {
		t.Fatalf("the person's decision: %+v %v, want approved", r, err)
	}
}

func waitFile(t *testing.T, path string) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if data, err := os.ReadFile(path); err == nil {
			return string(data)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("%s never written", path)
	return ""
}
