package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"pathgrant/ipc"
)

// agentCall is one file access the scripted model asks a client to make,
// in the client's own tools: a read or a write of path.
type agentCall struct {
	op      string // "read" or "write"
	path    string
	content string // what a write writes
}

// agentClient drives one real agent client offline against its local fake
// model, so that the same scenarios run over every client.
type agentClient interface {
	// name is the client's name in test names and the matrix.
	name() string
	// setup prepares the client in e's home: its offline model settings
	// and pathgrant's hook, installed by `pathgrant install-hooks`.
	setup(t *testing.T, e *agentsEnv)
	// start runs the client on one prompt, the model asking for call and
	// then ending the turn; hooked false runs it without any hook.
	start(t *testing.T, e *agentsEnv, call agentCall, hooked bool) *agentsRun
	// result is what the client's tool returned to the model for the call.
	result(t *testing.T, e *agentsEnv) (string, bool)
	// latencies are the times from the model's tool call to its result.
	latencies() []time.Duration
}

// agentScenario is one behaviour every client must show.
type agentScenario struct {
	name string
	run  func(t *testing.T, e *agentsEnv, c agentClient)
}

// agentScenarios are the behaviours the real-client tests check: an
// eligible read waits for the user and, approved from the CLI, returns the
// file; writes, secrets and symlink escapes are refused without a prompt.
var agentScenarios = []agentScenario{
	{"Downloads read approved from the CLI while the hook waits", scenarioReadApproved},
	{"write to Downloads refused without a prompt", scenarioWriteRefused},
	{"ssh key refused and not eligible", scenarioSSHRefused},
	{"symlink escape refused", scenarioSymlinkRefused},
}

// runAgentScenarios sets c up in a fresh environment and runs every
// scenario, recording pass or fail per scenario in outcome (when not nil);
// it returns the environment for checks of the client's own.
func runAgentScenarios(t *testing.T, c agentClient, outcome map[string]bool) *agentsEnv {
	e := newAgentsEnv(t)
	seedSecrets(t, e)
	c.setup(t, e)
	for _, s := range agentScenarios {
		ok := t.Run(s.name, func(t *testing.T) { s.run(t, e, c) })
		if outcome != nil {
			outcome[s.name] = ok
		}
	}
	return e
}

// seedSecrets puts what no agent may read next to the workspace: an ssh
// key, and a private file a workspace symlink points at.
func seedSecrets(t *testing.T, e *agentsEnv) {
	t.Helper()
	agentsWrite(t, e.home+"/.ssh/id_rsa", []byte("-----BEGIN OPENSSH PRIVATE KEY-----\npathgrant-e2e-ssh-secret\n"))
	agentsWrite(t, e.home+"/private/notes.txt", []byte("pathgrant-e2e-private-notes\n"))
	if err := os.Symlink(e.home+"/private/notes.txt", e.work+"/notes.txt"); err != nil {
		t.Fatal(err)
	}
}

func scenarioReadApproved(t *testing.T, e *agentsEnv, c agentClient) {
	report := e.dl + "/report.csv"
	run := c.start(t, e, agentCall{op: "read", path: report}, true)
	req := e.awaitPending(run, report)
	if req.Op != "read" || req.State != ipc.StatePending {
		t.Errorf("approval request %+v", req)
	}
	t.Logf("%s: approval request %s (agent %s, tool %s)", c.name(), req.ID, req.Agent, req.Tool)
	out := e.approveCLI(req.ID)
	if !strings.Contains(out, "approved") {
		t.Errorf("pathgrant approve said %q", out)
	}
	agentOut := run.wait(t)
	content, ok := c.result(t, e)
	if !ok {
		t.Fatalf("no tool result reached the model; %s said:\n%s\ndaemon:\n%s", c.name(), agentOut, e.log())
	}
	for _, line := range strings.Split(strings.TrimSpace(string(e.report)), "\n") {
		if !strings.Contains(content, line) {
			t.Errorf("the tool result lacks %q:\n%s\n%s said:\n%s", line, content, c.name(), agentOut)
		}
	}
	got, err := e.client.Request(context.Background(), req.ID)
	if err != nil || got.State != ipc.StateApproved || got.Scope != "session" {
		t.Errorf("request after approval: %+v %v", got, err)
	}
}

func scenarioWriteRefused(t *testing.T, e *agentsEnv, c agentClient) {
	target := e.dl + "/summary.txt"
	run := c.start(t, e, agentCall{op: "write", path: target, content: "two rows\n"}, true)
	content := refused(t, e, c, run, target)
	if !strings.Contains(content, "never offered for approval") {
		t.Errorf("the tool result does not say a write is never offered: %q", content)
	}
	if _, err := os.Stat(target); err == nil {
		t.Error("the refused write happened")
	}
}

func scenarioSSHRefused(t *testing.T, e *agentsEnv, c agentClient) {
	key := e.home + "/.ssh/id_rsa"
	run := c.start(t, e, agentCall{op: "read", path: key}, true)
	if content := refused(t, e, c, run, key); strings.Contains(content, "pathgrant-e2e-ssh-secret") {
		t.Errorf("the key reached the model: %q", content)
	}
}

// scenarioSymlinkRefused reads a workspace symlink to a private file.
// Gemini CLI resolves the link itself and refuses the target before any
// hook runs; that refusal counts as long as nothing reached the model.
func scenarioSymlinkRefused(t *testing.T, e *agentsEnv, c agentClient) {
	link, target := e.work+"/notes.txt", e.home+"/private/notes.txt"
	run := c.start(t, e, agentCall{op: "read", path: link}, true)
	var content string
	if c.name() == "gemini" {
		out := run.wait(t)
		content, _ = c.result(t, e)
		if !strings.Contains(content, "pathgrant: ") && !strings.Contains(content, target+"' is ignored") {
			t.Errorf("neither pathgrant nor Gemini refused the symlink: %q\n%s", content, out)
		}
		t.Logf("gemini: tool result %q", content)
	} else {
		content = refused(t, e, c, run, target)
	}
	if strings.Contains(content, "pathgrant-e2e-private-notes") {
		t.Errorf("the file behind the symlink reached the model: %q", content)
	}
}

// refused waits for the run and checks that pathgrant refused an access
// to path (the canonical path: a symlink's target): the model got
// pathgrant's reason naming it as the tool result, and nothing was
// offered for approval. It returns the tool result.
func refused(t *testing.T, e *agentsEnv, c agentClient, run *agentsRun, path string) string {
	t.Helper()
	out := run.wait(t)
	content, ok := c.result(t, e)
	if !ok {
		t.Fatalf("no tool result reached the model; %s said:\n%s\ndaemon:\n%s", c.name(), out, e.log())
	}
	if !strings.Contains(content, "pathgrant: ") || !strings.Contains(content, path) {
		t.Errorf("the tool result is not pathgrant's refusal of %s: %q\n%s said:\n%s", path, content, c.name(), out)
	}
	if reqs, _ := e.client.Pending(context.Background()); len(reqs) != 0 {
		t.Errorf("offered for approval: %+v", reqs)
	}
	t.Logf("%s: tool result %q", c.name(), content)
	return content
}

var approvalCode = regexp.MustCompile(`\bcode=("[^"]*"|\S+)`)

// approveCLI approves request id for the session from the command line,
// as the user would from a terminal: `pathgrant approve ID --scope
// session --yes`, with the one-time code the headless daemon logged for
// the request when it logs one.
func (e *agentsEnv) approveCLI(id string) string {
	e.t.Helper()
	args := []string{"approve", id, "--scope", "session", "--yes", "--socket", e.sock}
	for _, line := range strings.Split(e.log(), "\n") {
		if strings.Contains(line, "id="+id) {
			if m := approvalCode.FindStringSubmatch(line); m != nil {
				args = append(args, "--code", strings.Trim(m[1], `"`))
			}
		}
	}
	return e.pathgrant(args...)
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// agentClients are the real clients the matrix drives, by name, and
// whether the timing measures them; each constructor skips when its
// client is not installed.
var agentClients = []struct {
	name  string
	mk    func(*testing.T) agentClient
	timed bool
}{
	{"claude", newClaudeClient, false},
	{"gemini", newGeminiClient, false},
	{"codex", newCodexClient, true},
	{"pi", newPiClient, true},
}

// TestAgentsMatrix runs every scenario over every real client that is
// installed and prints which client passed which scenario.
func TestAgentsMatrix(t *testing.T) {
	if testing.Short() {
		t.Skip("real agent clients are not run in -short mode")
	}
	results := map[string]map[string]bool{}
	var names []string
	for _, ac := range agentClients {
		t.Run(ac.name, func(t *testing.T) {
			c := ac.mk(t)
			results[ac.name] = map[string]bool{}
			names = append(names, ac.name)
			runAgentScenarios(t, c, results[ac.name])
		})
	}
	t.Log("\n" + matrixTable(names, results))
}

// matrixTable renders client × scenario → pass/fail as a Markdown table.
func matrixTable(clients []string, results map[string]map[string]bool) string {
	var sb strings.Builder
	sb.WriteString("| scenario |")
	for _, c := range clients {
		sb.WriteString(" " + c + " |")
	}
	sb.WriteString("\n| --- |" + strings.Repeat(" --- |", len(clients)) + "\n")
	for _, s := range agentScenarios {
		sb.WriteString("| " + s.name + " |")
		for _, c := range clients {
			mark := "fail"
			if results[c][s.name] {
				mark = "pass"
			}
			sb.WriteString(" " + mark + " |")
		}
		sb.WriteByte('\n')
	}
	return sb.String()
}

// TestAgentsTiming measures, for each real client, the time from the
// model's tool call to the tool result for an allowed read (a workspace
// file), with pathgrant's hook installed and without any hook: the same
// fake model, runs paired and alternated. PATHGRANT_TIMING=1 runs it;
// PATHGRANT_TIMING_RUNS sets the pairs (default 7).
func TestAgentsTiming(t *testing.T) {
	if os.Getenv("PATHGRANT_TIMING") != "1" {
		t.Skip("PATHGRANT_TIMING=1 runs the client-level timing")
	}
	pairs := 7
	if n, err := fmt.Sscan(os.Getenv("PATHGRANT_TIMING_RUNS"), &pairs); n != 1 || err != nil || pairs < 1 {
		pairs = 7
	}
	for _, ac := range agentClients {
		if !ac.timed {
			continue
		}
		t.Run(ac.name, func(t *testing.T) {
			c := ac.mk(t)
			e := newAgentsEnv(t)
			c.setup(t, e)
			var with, without, diff []time.Duration
			for i := 0; i < pairs; i++ {
				with = append(with, timedRead(t, e, c, true))
				without = append(without, timedRead(t, e, c, false))
				diff = append(diff, with[i]-without[i])
			}
			t.Logf("%s: tool call → result for an allowed read, medians of %d pairs: with pathgrant %v, without hooks %v, paired difference %v",
				c.name(), pairs, median(with).Round(time.Microsecond), median(without).Round(time.Microsecond), median(diff).Round(time.Microsecond))
		})
	}
}

// timedRead runs one allowed read of a workspace file and returns the
// time from the model's tool call to the result reaching the model.
func timedRead(t *testing.T, e *agentsEnv, c agentClient, hooked bool) time.Duration {
	t.Helper()
	run := c.start(t, e, agentCall{op: "read", path: filepath.Join(e.work, "README.md")}, hooked)
	out := run.wait(t)
	if content, ok := c.result(t, e); !ok || !strings.Contains(content, "a project") {
		t.Fatalf("the allowed read returned %q (sent %v); %s said:\n%s", content, ok, c.name(), out)
	}
	lat := c.latencies()
	if len(lat) != 1 {
		t.Fatalf("%d tool latencies, want 1", len(lat))
	}
	return lat[0]
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
