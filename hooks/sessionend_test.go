package hooks_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
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
	"pathgrant/ipc/ipctest"
	"pathgrant/wire"
)

// liveDaemon is a real daemon over a store at storePath that watches the
// real processes its sessions are bound to. stop shuts it down (the store
// stays open for the caller to read; it closes when the test ends).
type liveDaemon struct {
	*daemon
	stop func()
}

// startLive starts a daemon on d's socket and store path (d from
// newLayout); the store is opened anew, as a restarted daemon opens it.
func startLive(t *testing.T, d *daemon) *liveDaemon {
	t.Helper()
	st, err := grants.Open(d.root+"/state/pathgrant.db", grants.Options{MachineID: "test-machine", NoWatch: true, Logger: ipctest.Quiet})
	if err != nil {
		t.Fatal(err)
	}
	dd := &daemon{t: t, root: d.root, home: d.home, work: d.work, dl: d.dl, sock: d.sock}
	dd.store = st
	dd.srv = ipc.New(ipc.Config{HooksBelow: true, Store: st, Home: d.home, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Device: guard.DevicePolicy{EligibleReadOnly: []string{d.dl}, Protected: []string{d.root + "/state", d.root + "/run"}}})
	ln, err := ipc.Listen(d.sock)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- dd.srv.Serve(ln) }()
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := dd.srv.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		<-done
		st.Close()
	}
	t.Cleanup(stop)
	dd.client = apiclient.New(d.sock)
	// The daemon adopts or ends stored sessions before it serves: once it
	// answers, that is done.
	if err := dd.client.Health(context.Background()); err != nil {
		t.Fatalf("health: %v", err)
	}
	return &liveDaemon{daemon: dd, stop: stop}
}

// newLayout is a temporary home with a workspace and a Downloads folder,
// and where a daemon's socket and store go.
func newLayout(t *testing.T) *daemon {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	d := &daemon{t: t, root: root, home: root + "/home"}
	d.work, d.dl, d.sock = d.home+"/work", d.home+"/Downloads", root+"/run/pathgrant.sock"
	for _, f := range []string{d.work + "/main.go", d.dl + "/report.csv"} {
		writeFile(t, f, "a,b\n1,2\n")
	}
	return d
}

// agent is a stand-in agent process: the test binary as the shim (not a
// shell, so the daemon binds sessions to it) running script under sh, the
// way agent clients run their hook commands. $HOOK is the hook binary and
// $DIR the agent's scratch folder.
type agent struct {
	cmd  *exec.Cmd
	dir  string
	done chan struct{}
}

func startAgent(t *testing.T, d *daemon, script string, env ...string) *agent {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	a := &agent{dir: t.TempDir(), done: make(chan struct{})}
	argv, _ := json.Marshal([]string{"sh", "-c", script})
	a.cmd = exec.Command(self)
	a.cmd.Env = append(hookEnv(), append(env, shimEnv+"="+string(argv), "HOOK="+hookBin, "DIR="+a.dir,
		"PATHGRANT_SOCKET="+d.sock)...)
	if err := a.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = a.cmd.Wait(); close(a.done) }()
	t.Cleanup(func() { _ = a.cmd.Process.Kill(); <-a.done })
	return a
}

// put writes a payload into the agent's folder, the neutral home expanded.
func (a *agent) put(t *testing.T, d *daemon, name, fixture string) {
	t.Helper()
	data, err := os.ReadFile("testdata/" + fixture)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(a.dir, name), d.expand(string(data)))
}

// output waits for the file the agent's hook wrote (complete: it ends
// with a newline, or the hook printed nothing and the marker file says
// it is done).
func (a *agent) output(t *testing.T, name string, within time.Duration) string {
	t.Helper()
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(filepath.Join(a.dir, name+".done")); err == nil {
			data, _ := os.ReadFile(filepath.Join(a.dir, name))
			return string(data)
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("the hook did not write %s within %v", name, within)
	return ""
}

// waitFor polls cond for up to within.
func waitFor(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not within %v: %s", within, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func sessionLive(t *testing.T, st *grants.Store, id string) bool {
	t.Helper()
	live, err := st.LiveSessions()
	if err != nil {
		t.Fatal(err)
	}
	return slices.ContainsFunc(live, func(s grants.Session) bool { return s.ID == id })
}

// audited reports whether an audit record of session has kind and a
// reason containing why.
func audited(t *testing.T, st *grants.Store, session string, kind grants.Kind, why string) bool {
	t.Helper()
	recs, err := st.AuditRecords(grants.AuditFilter{Session: session, Kind: kind})
	if err != nil {
		t.Fatal(err)
	}
	return slices.ContainsFunc(recs, func(r grants.Record) bool { return strings.Contains(r.Reason, why) })
}

const claudeSession = "ade5d187-b3fe-49c7-afd8-9b0b142294d4"

// TestAgentExitEndsSessionGrant: an agent gets a read approved for its
// session, then exits; within 3 s the grant no longer serves, its state
// and the audit say the agent exited, and a device grant stays.
func TestAgentExitEndsSessionGrant(t *testing.T) {
	d := startLive(t, newLayout(t))
	a := startAgent(t, d.daemon, `"$HOOK" claude < "$DIR/read.json" > "$DIR/out"; touch "$DIR/out.done"; sleep 1`,
		"PATHGRANT_WAIT_MS=20000")
	a.put(t, d.daemon, "read.json", "claude-code-2.1.328-pretooluse-read.json")
	req := d.waitPending(1)[0]
	if _, err := d.srv.Engine().Decide(req.ID, wire.Decision{Scope: "session"}); err != nil {
		t.Fatalf("approve for the session: %v", err)
	}
	if out := a.output(t, "out", 10*time.Second); !strings.Contains(out, `"permissionDecision":"allow"`) {
		t.Fatalf("hook answered %q, want allow", out)
	}
	gs, err := d.store.List(grants.Filter{Session: req.Session})
	if err != nil || len(gs) != 1 {
		t.Fatalf("live grants of the session: %v, %v; want the one approved", gs, err)
	}
	<-a.done
	exited := time.Now()
	waitFor(t, 3*time.Second, "the session grant ends after the agent exits", func() bool {
		g, err := d.store.Get(gs[0].ID)
		return err == nil && g.State(time.Now()) == "ended (agent exited)"
	})
	t.Logf("grant ended %v after the agent exited", time.Since(exited).Round(time.Millisecond))
	if !audited(t, d.store, req.Session, grants.KindExpire, "agent exited") {
		t.Error("no audit record says the agent exited")
	}
	if sessionLive(t, d.store, req.Session) {
		t.Error("the session is still live in the store")
	}
}

// TestAgentExitEndsPendingRequest: an agent exits while its hook waits
// for the user; the request ends and the hook answers deny, saying the
// session ended.
func TestAgentExitEndsPendingRequest(t *testing.T) {
	d := startLive(t, newLayout(t))
	a := startAgent(t, d.daemon,
		`("$HOOK" claude < "$DIR/read.json" > "$DIR/out"; touch "$DIR/out.done") & while [ ! -e "$DIR/go" ]; do sleep 0.05; done`,
		"PATHGRANT_WAIT_MS=30000")
	a.put(t, d.daemon, "read.json", "claude-code-2.1.328-pretooluse-read.json")
	req := d.waitPending(1)[0]
	writeFile(t, filepath.Join(a.dir, "go"), "") // the agent exits; its hook still waits
	<-a.done
	out := a.output(t, "out", 5*time.Second)
	var ans struct {
		Hook struct {
			Decision string `json:"permissionDecision"`
			Reason   string `json:"permissionDecisionReason"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(out), &ans); err != nil {
		t.Fatalf("hook output %q: %v", out, err)
	}
	if ans.Hook.Decision != "deny" || !strings.Contains(ans.Hook.Reason, "session ended (agent exited)") {
		t.Errorf("hook answered %+v, want a deny saying the session ended", ans.Hook)
	}
	if p := d.srv.Engine().Pending(); len(p) != 0 {
		t.Errorf("requests still pending: %+v", p)
	}
	if _, err := d.srv.Engine().Decide(req.ID, wire.Decision{Scope: "session"}); err == nil {
		t.Error("approving the ended request succeeded")
	}
	if gs, _ := d.store.List(grants.Filter{Session: req.Session, IncludeRevoked: true}); len(gs) != 0 {
		t.Errorf("grants made for the ended session: %+v", gs)
	}
}

// endCases pairs each client's check inside the workspace (which starts
// its session) with its session-end event for the same session.
var endCases = []struct {
	client, check, end, session string
	output                      string
}{
	{"claude", "claude-pretooluse-read-workspace.json", "claude-sessionend.json", claudeSession, "{}\n"},
	{"codex", "codex-pretooluse-bash-workspace.json", "codex-sessionend.json", "019a3c1e-7f2b-7c41-9d0e-5b8a2f6c1d34", ""},
	{"gemini", "gemini-beforetool-read_file-workspace.json", "gemini-sessionend.json", "70040a15-ed21-41c4-a6d9-4a7b99116925", "{}\n"},
	{"cursor", "cursor-beforereadfile-workspace.json", "cursor-sessionend.json", "668320d2-2fd3-4a1e-9b6c-0f2a7c0f6e11", "{}\n"},
	{"pi", "pi-tool_call-read-workspace.json", "pi-session_shutdown.json", "3f1c9a52-8e07-4b6d-a2c4-d7e9b0f81a26", `{"block":false}` + "\n"},
	{"droid", "droid-pretooluse-read-workspace.json", "droid-0.225.2-sessionend.json", "7acf5767-13f6-4788-a345-cd89376afeed", "{}\n"},
	{"qwen", "qwen-pretooluse-read_file-workspace.json", "qwen-code-0.24.4-sessionend.json", "b6a3bba0-bcb6-4835-a93e-fca9dd6e470a", "{}\n"},
	{"copilot", "copilot-pretooluse-view-workspace.json", "copilot-1.0.102-sessionend.json", "f82f6dc4-a75d-48c3-8ac7-17b081fb063e", "{}\n"},
}

// TestSessionEndEvent: each client's own session-end event, sent by the
// hook under the agent whose session it is, ends that session at once
// (the agent still runs), with "session end" as the reason, and the hook
// answers no decision with exit 0.
func TestSessionEndEvent(t *testing.T) {
	for _, tc := range endCases {
		t.Run(tc.client, func(t *testing.T) {
			t.Parallel()
			d := startLive(t, newLayout(t))
			a := startAgent(t, d.daemon, `"$HOOK" $CLIENT < "$DIR/check.json" > "$DIR/check"; touch "$DIR/check.done"
"$HOOK" $CLIENT < "$DIR/end.json" > "$DIR/end"; echo $? > "$DIR/end.st"; mv "$DIR/end.st" "$DIR/end.done"; exec sleep 60`, "CLIENT="+tc.client)
			a.put(t, d.daemon, "check.json", tc.check)
			a.put(t, d.daemon, "end.json", tc.end)
			a.output(t, "check", 10*time.Second)
			if out := a.output(t, "end", 10*time.Second); out != tc.output {
				t.Errorf("end hook printed %q, want %q", out, tc.output)
			}
			if code, _ := os.ReadFile(filepath.Join(a.dir, "end.done")); strings.TrimSpace(string(code)) != "0" {
				t.Errorf("end hook exit status %q, want 0", code)
			}
			waitFor(t, 2*time.Second, "the session ends", func() bool { return !sessionLive(t, d.store, tc.session) })
			select {
			case <-a.done:
				t.Fatal("the agent exited: the session did not end by its event")
			default:
			}
			if !audited(t, d.store, tc.session, grants.KindExpire, "session ended (session end)") {
				t.Error("no audit record of the session's end")
			}
		})
	}
}

// TestForgedSessionEnd: an end event naming another agent's session is
// refused and audited; that session stays live, and the forging hook
// still answers its client with no decision.
func TestForgedSessionEnd(t *testing.T) {
	for _, tc := range endCases {
		t.Run(tc.client, func(t *testing.T) {
			t.Parallel()
			d := startLive(t, newLayout(t))
			owner := startAgent(t, d.daemon, `"$HOOK" $CLIENT < "$DIR/check.json" > "$DIR/check"; touch "$DIR/check.done"; exec sleep 60`,
				"CLIENT="+tc.client)
			owner.put(t, d.daemon, "check.json", tc.check)
			owner.output(t, "check", 10*time.Second)
			forger := startAgent(t, d.daemon, `"$HOOK" $CLIENT < "$DIR/end.json" > "$DIR/end"; echo $? > "$DIR/end.st"; mv "$DIR/end.st" "$DIR/end.done"; exec sleep 60`,
				"CLIENT="+tc.client)
			forger.put(t, d.daemon, "end.json", tc.end)
			if out := forger.output(t, "end", 10*time.Second); out != tc.output {
				t.Errorf("forged end hook printed %q, want %q", out, tc.output)
			}
			if code, _ := os.ReadFile(filepath.Join(forger.dir, "end.done")); strings.TrimSpace(string(code)) != "0" {
				t.Errorf("forged end hook exit status %q, want 0", code)
			}
			if !sessionLive(t, d.store, tc.session) {
				t.Fatal("a forged end event ended another agent's session")
			}
			if !audited(t, d.store, tc.session, grants.KindForged, "bound to another client") {
				t.Error("the forged end was not audited")
			}
		})
	}
}

// TestRestartAdoptsLiveAgents: a daemon restart ends the sessions whose
// agent exited while it was down and adopts those whose agent still runs:
// the adopted session keeps its binding (another agent cannot use it) and
// is watched again.
func TestRestartAdoptsLiveAgents(t *testing.T) {
	layout := newLayout(t)
	d1 := startLive(t, layout)
	script := `"$HOOK" claude < "$DIR/check.json" > "$DIR/check"; touch "$DIR/check.done"
while [ ! -e "$DIR/again" ]; do sleep 0.05; done
"$HOOK" claude < "$DIR/check.json" > "$DIR/again.out"; touch "$DIR/again.out.done"
while [ ! -e "$DIR/quit" ]; do sleep 0.05; done`
	stays := startAgent(t, d1.daemon, script)
	stays.put(t, d1.daemon, "check.json", "claude-pretooluse-read-workspace.json")
	goes := startAgent(t, d1.daemon, script)
	other := strings.ReplaceAll(mustRead(t, "testdata/claude-pretooluse-read-workspace.json"), claudeSession, "11111111-2222-3333-4444-555555555555")
	writeFile(t, filepath.Join(goes.dir, "check.json"), d1.expand(other))
	stays.output(t, "check", 10*time.Second)
	goes.output(t, "check", 10*time.Second)
	d1.stop()

	_ = goes.cmd.Process.Kill() // exits while no daemon runs
	<-goes.done
	d2 := startLive(t, layout)
	if sessionLive(t, d2.store, "11111111-2222-3333-4444-555555555555") {
		t.Error("the session of the agent that exited is live after the restart")
	}
	if !audited(t, d2.store, "11111111-2222-3333-4444-555555555555", grants.KindExpire, "agent exited") {
		t.Error("no audit record says its agent exited")
	}
	if !sessionLive(t, d2.store, claudeSession) {
		t.Fatal("the live agent's session was ended by the restart")
	}
	writeFile(t, filepath.Join(stays.dir, "again"), "")
	if out := stays.output(t, "again.out", 10*time.Second); out != "{}\n" {
		t.Errorf("the adopted session's check answered %q, want {} (allowed, no decision)", out)
	}
	intruder := runHook(t, "claude", d2.expand(mustRead(t, "testdata/claude-pretooluse-read-workspace.json")), "PATHGRANT_SOCKET="+d2.sock)
	if !strings.Contains(intruder.stdout, "deny") {
		t.Errorf("another agent used the adopted session: %q", intruder.stdout)
	}
	writeFile(t, filepath.Join(stays.dir, "quit"), "")
	<-stays.done
	waitFor(t, 3*time.Second, "the adopted session ends when its agent exits", func() bool {
		return !sessionLive(t, d2.store, claudeSession)
	})
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestResumedConversationStartsAfresh: a client that resumes its
// conversation in a new process (`claude --resume`) keeps its own session
// id. Its pathgrant session ended with the first process, so the resumed
// one gets a new session bound to the new process: its checks are
// answered, and nothing approved for the ended session carries over.
func TestResumedConversationStartsAfresh(t *testing.T) {
	d := startLive(t, newLayout(t))
	first := startAgent(t, d.daemon, `"$HOOK" claude < "$DIR/read.json" > "$DIR/out"; touch "$DIR/out.done"; sleep 1`,
		"PATHGRANT_WAIT_MS=20000")
	first.put(t, d.daemon, "read.json", "claude-code-2.1.328-pretooluse-read.json")
	req := d.waitPending(1)[0]
	if _, err := d.srv.Engine().Decide(req.ID, wire.Decision{Scope: "session"}); err != nil {
		t.Fatalf("approve for the session: %v", err)
	}
	<-first.done
	waitFor(t, 3*time.Second, "the first session ends with its agent", func() bool {
		return !sessionLive(t, d.store, req.Session)
	})

	resumed := startAgent(t, d.daemon, `"$HOOK" claude < "$DIR/read.json" > "$DIR/out"; touch "$DIR/out.done"; sleep 3`,
		"PATHGRANT_WAIT_MS=0")
	resumed.put(t, d.daemon, "read.json", "claude-code-2.1.328-pretooluse-read.json")
	out := resumed.output(t, "out", 10*time.Second)
	if !strings.Contains(out, `"permissionDecision":"deny"`) || !strings.Contains(out, "needs the person's approval") {
		t.Fatalf("resumed hook answered %q, want a deny pending a new approval (the old grant ended)", out)
	}
	again := d.waitPending(1)[0]
	if again.Session == req.Session {
		t.Fatalf("the resumed conversation's request is in the ended session %s", req.Session)
	}
	if !sessionLive(t, d.store, again.Session) {
		t.Errorf("the resumed conversation's session %s is not live", again.Session)
	}
}
