package engine

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"pathgrant/grants"
	"pathgrant/sandbox/afterrun"
)

// owedEnv is an engine on a store in a temporary folder, and a workspace
// holding a repository; mark is where a planted program would write.
type owedEnv struct {
	db, ws, mark string
}

func newOwedEnv(t *testing.T) owedEnv {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	o := owedEnv{db: filepath.Join(root, "state", "pathgrant.db"), ws: filepath.Join(root, "ws"), mark: filepath.Join(root, "MARK")}
	gitIn(t, root, "init", "-q", o.ws)
	time.Sleep(50 * time.Millisecond) // the set-up lies before any command's start
	return o
}

// engine opens the store and starts an engine on it; it is stopped, and
// the store closed, at the test's end or by the returned func.
func (o owedEnv) engine(t *testing.T) (*Engine, func()) {
	t.Helper()
	st, err := grants.Open(o.db, grants.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e := New(Config{Store: st})
	e.Start()
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			e.Stop()
			e.Wait()
			st.Close()
		}
	}
	t.Cleanup(stop)
	return e, stop
}

// plant makes the person's next git status run a program.
func (o owedEnv) plant(t *testing.T) {
	t.Helper()
	gitIn(t, o.ws, "config", "core.fsmonitor", "touch "+o.mark+"; false")
}

// personRunsGit is the person's own git status, outside any confinement;
// it fails the test when a planted program ran.
func (o owedEnv) personRunsGit(t *testing.T) {
	t.Helper()
	cmd := exec.Command("git", "status")
	cmd.Dir, cmd.Env = o.ws, gitEnv(t)
	cmd.Run()
	if _, err := os.Stat(o.mark); err == nil {
		t.Fatal("the person's git ran the planted program")
	}
}

func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = dir, gitEnv(t)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func gitEnv(t *testing.T) []string {
	home := t.TempDir()
	return append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+home, "GIT_CONFIG_NOSYSTEM=1")
}

// holder is a process standing for a command's front end.
func holder(t *testing.T) (*exec.Cmd, Proc) {
	t.Helper()
	cmd := exec.Command("sleep", "600")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	_, p, _, err := ProcInfo(int32(cmd.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	return cmd, p
}

// waitOwed waits until the store owes no check.
func waitOwed(t *testing.T, e *Engine) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if recs, err := e.cfg.Store.AfterRuns(); err == nil && len(recs) == 0 {
			return
		}
	}
	t.Fatal("the owed check did not run")
}

// TestOwedCheckRunsWhenTheFrontEndDies: nobody reports the command's end
// (its front end was killed); the daemon sees the front end gone and runs
// the check itself.
func TestOwedCheckRunsWhenTheFrontEndDies(t *testing.T) {
	o := newOwedEnv(t)
	e, _ := o.engine(t)
	fe, p := holder(t)
	if _, err := e.owe("s", afterrun.Begin([]string{o.ws}, true), p, false, ""); err != nil {
		t.Fatal(err)
	}
	o.plant(t)
	fe.Process.Kill()
	waitOwed(t, e)
	o.personRunsGit(t)
}

// TestOwedCheckSurvivesARestart: the daemon stops while it owes a check
// (its front end still running); the next daemon takes the record from
// the store and runs the check once the front end is gone.
func TestOwedCheckSurvivesARestart(t *testing.T) {
	o := newOwedEnv(t)
	e, stop := o.engine(t)
	fe, p := holder(t)
	if _, err := e.owe("s", afterrun.Begin([]string{o.ws}, true), p, false, ""); err != nil {
		t.Fatal(err)
	}
	o.plant(t)
	stop()
	fe.Process.Kill()
	fe.Wait()
	e2, _ := o.engine(t)
	waitOwed(t, e2)
	o.personRunsGit(t)
}

// TestFailedCheckRefusesTheNextCommand: a check that cannot finish holds
// the session's next command, with one line saying why and what to do,
// until a retry passes; another session is not held.
func TestFailedCheckRefusesTheNextCommand(t *testing.T) {
	o := newOwedEnv(t)
	e, _ := o.engine(t)
	gone := filepath.Join(o.ws, "moved")
	if err := os.Mkdir(gone, 0o755); err != nil {
		t.Fatal(err)
	}
	plan := afterrun.Begin([]string{gone}, true)
	os.Remove(gone) // the area cannot be checked
	if _, err := e.owe("s", plan, e.self, false, ""); err != nil {
		t.Fatal(err)
	}
	c := e.owed.ofSession("s")[0]
	if _, err := e.runOwed(c, false); err == nil {
		t.Fatal("a check of a missing workspace passed")
	}
	aerr := e.checkBefore("s")
	if aerr == nil || !strings.Contains(aerr.Error(), "did not finish") || !strings.Contains(aerr.Error(), "retry") {
		t.Fatalf("the next command: %v", aerr)
	}
	if aerr := e.checkBefore("t"); aerr != nil {
		t.Fatalf("another session held: %v", aerr)
	}
	if got := e.Health().FailedChecks; got != 1 {
		t.Fatalf("Health counts %d failed checks, want 1", got)
	}
	if err := os.Mkdir(gone, 0o755); err != nil {
		t.Fatal(err)
	}
	if aerr := e.checkBefore("s"); aerr != nil {
		t.Fatalf("the retry after the fix: %v", aerr)
	}
	waitOwed(t, e)
}

// TestSwappedWorkspaceIsNotWalked: an outer session's command swaps the
// inner session's workspace for a link to a folder of the person's,
// outside every workspace. The inner command's check does not walk
// where the link leads (it would move the person's files aside): it
// fails, saying why.
func TestSwappedWorkspaceIsNotWalked(t *testing.T) {
	o := newOwedEnv(t)
	e, _ := o.engine(t)
	victim := filepath.Join(filepath.Dir(filepath.Dir(o.ws)), "victim-"+filepath.Base(filepath.Dir(o.ws)))
	if err := os.Mkdir(victim, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(victim) })
	_, p := holder(t)
	id, err := e.owe("inner", afterrun.Begin([]string{o.ws}, true), p, false, "")
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond)
	// the person edits their own project's MCP servers while the command runs
	mine := filepath.Join(victim, ".mcp.json")
	if err := os.WriteFile(mine, []byte(`{"mcpServers":{}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	// the outer session's command (its view writes the inner workspace's parent)
	if err := os.Rename(o.ws, o.ws+".orig"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, o.ws); err != nil {
		t.Fatal(err)
	}
	if _, err := e.runOwed(e.owed.get(id), false); err == nil || !strings.Contains(err.Error(), "replaced during the command") {
		t.Errorf("the check of a swapped workspace: %v; want it failed, saying the workspace was replaced", err)
	}
	if _, err := os.Lstat(mine); err != nil {
		es, _ := os.ReadDir(victim)
		t.Errorf("the person's %s, outside every workspace, was moved by the check: %v (now %v)", mine, err, es)
	}
}
