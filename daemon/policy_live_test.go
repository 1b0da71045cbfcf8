package daemon

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"log/slog"

	"pathgrant/apiclient"
	"pathgrant/devicepolicy"
	"pathgrant/grants"
	"pathgrant/guard"
	"pathgrant/internal/buildcheck"
	"pathgrant/ipc"
	"pathgrant/ipc/ipctest"
	"pathgrant/wire"
)

// liveDaemon is a daemon started by Start, as `pathgrant serve` starts
// it, with its device policy file in a temporary XDG_CONFIG_HOME, and a
// session registered in it.
type liveDaemon struct {
	root, home, work, sock, policyFile, hook string
	d                                        *Daemon
	client                                   *apiclient.Client // the session's
	log                                      *ipctest.Person   // the daemon's log, safe to read while it writes
}

// oldReason marks the audit record written two days before the daemon
// starts.
const oldReason = "two days old"

// TestPolicyLive: each setting of the device policy file, changed in the
// file of a running daemon, changes what the daemon (or the hook) does,
// without a restart. Each row writes its setting alone (the others fall
// back to their defaults), checks that the behaviour was not there before,
// and waits for it by polling with a deadline.
func TestPolicyLive(t *testing.T) {
	l := startLive(t)
	data, sdk, cache, conf := l.root+"/data", l.root+"/sdk", l.root+"/cache", l.root+"/tool.conf"
	tests := []struct {
		name, setting string
		in            func(t *testing.T) bool // the setting's effect is observed
	}{
		{"retention_days prunes a two-day-old record and session at once", "retention_days = 1", func(t *testing.T) bool {
			return !l.hasOldRecord(t) && l.pruned(t, "pruned 1 ended session(s)")
		}},
		{"eligible_read_only makes a denied read eligible", `eligible_read_only = ["` + data + `"]`, func(t *testing.T) bool {
			ans := l.check(t, wire.CheckRequest{Op: guard.OpRead, Path: data + "/report.csv"})
			return ans.Decision == guard.Deny && ans.Eligible && ans.Pending != ""
		}},
		{"toolchains reach the session's policy", `toolchains = ["` + sdk + `"]`, func(t *testing.T) bool {
			return slices.Equal(l.policy(t).Toolchains, []string{sdk})
		}},
		{"caches reach the session's policy", `caches = ["` + cache + `"]`, func(t *testing.T) bool {
			return slices.Equal(l.policy(t).Caches, []string{cache})
		}},
		{"read_only_files reach the session's policy", `read_only_files = ["` + conf + `"]`, func(t *testing.T) bool {
			return slices.Equal(l.policy(t).ReadOnlyFiles, []string{conf})
		}},
		{"ssh_agent reaches the session's policy", "ssh_agent = true", func(t *testing.T) bool {
			return l.policy(t).SSHAgent
		}},
		{"allow_protected opens the member to the guard and in the policy", `allow_protected = [".vscode"]`, func(t *testing.T) bool {
			ans := l.check(t, wire.CheckRequest{Op: guard.OpWrite, Path: l.work + "/.vscode/tasks.json"})
			return ans.Decision == guard.Allow && !slices.Contains(l.policy(t).Protected, l.work+"/.vscode")
		}},
		{"confinement = false makes shell commands unconfined", "confinement = false", func(t *testing.T) bool {
			ans := l.check(t, wire.CheckRequest{Command: "ls", Cwd: l.work})
			return ans.Exec != nil && ans.Exec.Level == wire.LevelOff && !ans.Exec.Confine
		}},
		{`unmapped_tools = "ask-client" makes the hook leave a tool it cannot map to the client`, `unmapped_tools = "ask-client"`, func(t *testing.T) bool {
			return l.runHook(t, "Skill") == "{}\n"
		}},
		{`unknown_tools = "deny" makes the hook deny another server's tool`, `unknown_tools = "deny"`, func(t *testing.T) bool {
			return strings.Contains(l.runHook(t, "mcp__other__fetch"), `"permissionDecision":"deny"`)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.in(t) {
				t.Fatalf("observed before %q was written", tt.setting)
			}
			l.write(t, "# rewritten by the test\n"+tt.setting+"\n")
			eventually(t, tt.setting, func() bool { return tt.in(t) })
		})
	}
	// A file that does not load keeps the last good one, and says so once.
	t.Run("a refused file keeps the last good policy", func(t *testing.T) {
		l.write(t, "ssh_agent = true\ntoolchains = [\"~/.ssh\"]\n")
		eventually(t, "the refusal logged", func() bool { return strings.Contains(l.log.Log(), "never allowed") })
		if l.policy(t).SSHAgent || !strings.Contains(l.runHook(t, "mcp__other__fetch"), `"permissionDecision":"deny"`) {
			t.Fatalf("the refused file's settings are in force, or the last good one is not")
		}
		if n := strings.Count(l.log.Log(), "the changed file is refused"); n != 1 {
			t.Errorf("the refusal was logged %d times, want once:\n%s", n, l.log.Log())
		}
	})
}

// startLive writes a store holding an ended session and an audit record
// two days old, starts the daemon on it with a device policy file of no
// settings (the defaults: 90 days of audit), and registers a session.
func startLive(t *testing.T) *liveDaemon {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	l := &liveDaemon{root: root, home: root + "/home", sock: root + "/run/pathgrant.sock", log: &ipctest.Person{}}
	l.work, l.policyFile = l.home+"/work", root+"/config/pathgrant/"+devicepolicy.TOMLName
	for _, dir := range []string{l.work, root + "/data", root + "/run", filepath.Dir(l.policyFile)} {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	l.hook = buildHook(t) // before HOME moves: go's caches are below it
	t.Setenv("HOME", l.home)
	t.Setenv("XDG_CONFIG_HOME", root+"/config")
	storePath := root + "/state/pathgrant.db"
	writeOldStore(t, storePath)
	l.write(t, "# no settings: the defaults\n")

	log := slog.New(slog.NewTextHandler(l.log, nil))
	if l.d, err = Start(l.sock, storePath, log); err != nil {
		t.Fatal(err)
	}
	srv := ipc.New(l.d.Config(log, nil))
	serveErr := l.d.Serve(srv)
	t.Cleanup(func() {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if err := l.d.Stop(ctx, srv, serveErr, log); err != nil {
			t.Errorf("stop: %v", err)
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	sess, err := apiclient.New(l.sock).Register(ctx, wire.SessionRequest{Agent: "a", Cwd: l.work, Workspace: []string{l.work}})
	if err != nil {
		t.Fatal(err)
	}
	l.client = apiclient.ForSession(l.sock, sess.ID, sess.Token)
	return l
}

// writeOldStore ends a session and audits a record in a store whose clock
// says two days ago.
func writeOldStore(t *testing.T, path string) {
	t.Helper()
	then := time.Now().Add(-48 * time.Hour)
	st, err := grants.Open(path, grants.Options{Now: func() time.Time { return then }, NoWatch: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.StartSession(grants.Session{ID: "old-session"}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.EndSession("old-session"); err != nil {
		t.Fatal(err)
	}
	if err := st.Audit(grants.Record{Kind: grants.KindDeny, Session: "old-session", Reason: oldReason}); err != nil {
		t.Fatal(err)
	}
}

// buildHook builds pathgrant-hook, which reads the device policy file
// itself at each call.
func buildHook(t *testing.T) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "pathgrant-hook")
	cmd := exec.Command(buildcheck.GoTool(), "build", "-o", out, "pathgrant/cmd/pathgrant-hook")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if data, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build pathgrant-hook: %v\n%s", err, data)
	}
	return out
}

// write replaces the policy file as editors do: written aside, renamed in.
func (l *liveDaemon) write(t *testing.T, data string) {
	t.Helper()
	tmp := l.policyFile + ".tmp"
	if err := os.WriteFile(tmp, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, l.policyFile); err != nil {
		t.Fatal(err)
	}
}

func (l *liveDaemon) check(t *testing.T, req wire.CheckRequest) wire.Answer {
	t.Helper()
	ans, err := l.client.Check(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	return ans
}

func (l *liveDaemon) policy(t *testing.T) wire.Policy {
	t.Helper()
	p, err := l.client.Policy(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func (l *liveDaemon) hasOldRecord(t *testing.T) bool {
	t.Helper()
	recs, err := l.d.Store.AuditRecords(grants.AuditFilter{})
	if err != nil {
		t.Fatal(err)
	}
	return slices.ContainsFunc(recs, func(r grants.Record) bool { return r.Reason == oldReason })
}

// pruned reports whether a prune record holds reason.
func (l *liveDaemon) pruned(t *testing.T, reason string) bool {
	t.Helper()
	recs, err := l.d.Store.AuditRecords(grants.AuditFilter{Kind: grants.KindPrune})
	if err != nil {
		t.Fatal(err)
	}
	return slices.ContainsFunc(recs, func(r grants.Record) bool { return strings.Contains(r.Reason, reason) })
}

// runHook runs `pathgrant-hook claude` on a call of tool (another MCP
// server's, or one the hook cannot map) in the daemon's environment, and
// returns what it answered.
func (l *liveDaemon) runHook(t *testing.T, tool string) string {
	t.Helper()
	cmd := exec.Command(l.hook, "claude")
	// The registered session's id and token: the hook runs as this test's
	// child, that is the daemon's, whose own new sessions it refuses.
	cmd.Env = []string{"HOME=" + l.home, "XDG_CONFIG_HOME=" + l.root + "/config", "PATHGRANT_SOCKET=" + l.sock,
		"PATHGRANT_SESSION=" + l.client.Session, "PATHGRANT_TOKEN=" + l.client.Token}
	cmd.Stdin = strings.NewReader(`{"session_id":"s1","transcript_path":"/t.jsonl","cwd":"` + l.work + `","permission_mode":"default",` +
		`"hook_event_name":"PreToolUse","tool_name":"` + tool + `","tool_input":{},"tool_use_id":"toolu_1"}`)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("pathgrant-hook: %v: %s", err, out)
	}
	return string(out)
}

// eventually polls ok until it holds or ten seconds pass.
func eventually(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not observed within 10 s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
