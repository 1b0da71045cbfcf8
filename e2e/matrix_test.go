package e2e

import (
	"context"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"pathgrant/ipc/ipctest"
	"pathgrant/wire"
)

// agentCall is one thing the scripted model asks a client to do: a read
// or a write of path in the client's own file tools or (mcp) in
// pathgrant's MCP bridge, or a shell command in the client's shell tool.
type agentCall struct {
	op      string // "read", "write" or "shell"
	path    string
	content string // what a write writes
	command string // what a shell call runs
	mcp     bool   // through the bridge's read_file and write_file
}

// hookMode is which hook a run has the client run. The no-op mode keeps
// the configuration install-hooks wrote, the harness having put a no-op
// hook at its path, so that the client's own cost of running any hook
// can be told from pathgrant's.
type hookMode int

const (
	hookNone      hookMode = iota // no hook at all
	hookNoop                      // the installed hooks, running the no-op binary; no `pathgrant run`
	hookPathgrant                 // pathgrant's hook as installed, and `pathgrant run` where the client uses it
)

// mcpTool is the bridge tool a call through MCP uses, with its arguments.
func (call agentCall) mcpTool() (string, map[string]any) {
	if call.op == "write" {
		return "write_file", map[string]any{"path": call.path, "content": call.content}
	}
	return "read_file", map[string]any{"path": call.path}
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
	// then ending the turn; hook says which hook, if any, it runs.
	start(t *testing.T, e *agentsEnv, call agentCall, hook hookMode) *agentsRun
	// result is what the client's tool returned to the model for the call.
	result(t *testing.T, e *agentsEnv) (string, bool)
	// sent is everything the client sent toward the model in the last
	// conversation, to show that a secret never reached it.
	sent(t *testing.T, e *agentsEnv) string
	// mcpName is the name the client gives the bridge's tool in the
	// model's tool calls, "" for a client without MCP.
	mcpName(tool string) string
	// latencies are the times from the model's tool call to its result.
	latencies() []time.Duration
}

// agentScenario is one behaviour every client must show, through the
// client's own tools or (mcp) through pathgrant's MCP bridge. run returns
// a note for the matrix cell ("" for none).
type agentScenario struct {
	name string
	mcp  bool
	run  func(t *testing.T, e *agentsEnv, c agentClient, mcp bool) string
}

// agentScenarios are the behaviours the real-client tests check: an
// eligible read waits for the user and, approved with its code from the
// CLI, returns the file; writes, secrets and symlink escapes are refused
// without a prompt; a shell command runs confined and cannot read outside
// the workspace. The last four repeat the file scenarios through the
// bridge.
var agentScenarios = []agentScenario{
	{name: "Downloads read approved with the code while the hook waits", run: scenarioReadApproved},
	{name: "write to Downloads refused without a prompt", run: scenarioWriteRefused},
	{name: "ssh key refused and not eligible", run: scenarioSSHRefused},
	{name: "symlink escape refused", run: scenarioSymlinkRefused},
	{name: "a confined shell command unable to read outside the workspace", run: scenarioShellConfined},
	{name: "MCP: Downloads read approved with the code while it waits", mcp: true, run: scenarioReadApproved},
	{name: "MCP: write_file to Downloads refused without a prompt", mcp: true, run: scenarioWriteRefused},
	{name: "MCP: read_file ~/.ssh/id_rsa refused and not eligible", mcp: true, run: scenarioSSHRefused},
	{name: "MCP: symlink escape through read_file refused", mcp: true, run: scenarioSymlinkRefused},
}

// noMCP is the matrix cell of an MCP scenario for a client without MCP.
const noMCP = "n/a (no MCP)"

// runAgentScenarios sets c up in a fresh environment and runs every
// scenario, recording its matrix cell (pass, fail or n/a, with a note) in
// outcome (when not nil); it returns the environment for checks of the
// client's own. The bridge is registered with `pathgrant install-mcp`
// before the first MCP scenario.
func runAgentScenarios(t *testing.T, c agentClient, outcome map[string]string) *agentsEnv {
	e := newAgentsEnv(t)
	seedSecrets(t, e)
	c.setup(t, e)
	registered := false
	for _, s := range agentScenarios {
		cell := noMCP
		if !s.mcp || c.mcpName("read_file") != "" {
			if s.mcp && !registered {
				registerMCP(t, e, c)
				registered = true
			}
			cell = runScenario(t, e, c, s)
		}
		if outcome != nil {
			outcome[s.name] = cell
		}
	}
	return e
}

// runScenario runs one scenario as a subtest and returns its cell.
func runScenario(t *testing.T, e *agentsEnv, c agentClient, s agentScenario) string {
	var note string
	ok := t.Run(s.name, func(t *testing.T) {
		outer := e.t // e's helpers fail the test they run in
		e.t = t
		defer func() { e.t = outer }()
		note = s.run(t, e, c, s.mcp)
	})
	cell := "fail"
	if ok {
		cell = "pass"
	} else if content, sent := c.result(t, e); sent {
		t.Logf("%s: the failed scenario's tool result: %q", c.name(), content)
	}
	if note != "" {
		cell += " (" + note + ")"
	}
	return cell
}

// registerMCP registers `pathgrant mcp` as c's MCP server pathgrant, in
// the temporary home, as a user would: `pathgrant install-mcp CLIENT`.
func registerMCP(t *testing.T, e *agentsEnv, c agentClient) {
	t.Helper()
	out := e.pathgrant("install-mcp", c.name(), "--socket", e.sock)
	if !strings.Contains(out, "registered the pathgrant MCP server for "+c.name()) {
		t.Fatalf("install-mcp %s: %s", c.name(), out)
	}
	t.Logf("install-mcp %s: %s", c.name(), strings.TrimSpace(out))
}

// The secrets no agent may read, and the workspace script that tries to
// read one of them from a shell command.
const (
	sshSecret     = "pathgrant-e2e-ssh-secret"
	privateSecret = "pathgrant-e2e-private-notes"
	peekSecret    = "pathgrant-e2e-peek-secret"
)

// seedSecrets puts what no agent may read next to the workspace: an ssh
// key, a private file a workspace symlink points at, and another private
// file that the workspace script peek.sh reads (a path no static analysis
// of `sh ./peek.sh` can see).
func seedSecrets(t *testing.T, e *agentsEnv) {
	t.Helper()
	agentsWrite(t, e.home+"/.ssh/id_rsa", []byte("-----BEGIN OPENSSH PRIVATE KEY-----\n"+sshSecret+"\n"))
	agentsWrite(t, e.home+"/private/notes.txt", []byte(privateSecret+"\n"))
	agentsWrite(t, e.home+"/private/peek.txt", []byte(peekSecret+"\n"))
	agentsWrite(t, e.work+"/peek.sh", []byte("echo peek-ran\ncat "+shellQuote(e.home+"/private/peek.txt")+"\necho peek-exit=$?\n"))
	if err := os.Symlink(e.home+"/private/notes.txt", e.work+"/notes.txt"); err != nil {
		t.Fatal(err)
	}
}

func scenarioReadApproved(t *testing.T, e *agentsEnv, c agentClient, mcp bool) string {
	report := e.dl + "/report.csv"
	run := c.start(t, e, agentCall{op: "read", path: report, mcp: mcp}, hookPathgrant)
	req := e.awaitPending(run, report)
	if req.Op != "read" || req.State != wire.StatePending {
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
	if err != nil || got.State != wire.StateApproved || got.Scope != "session" {
		t.Errorf("request after approval: %+v %v", got, err)
	}
	return ""
}

func scenarioWriteRefused(t *testing.T, e *agentsEnv, c agentClient, mcp bool) string {
	target := e.dl + "/summary.txt"
	run := c.start(t, e, agentCall{op: "write", path: target, content: "two rows\n", mcp: mcp}, hookPathgrant)
	content := refused(t, e, c, run, target)
	if !strings.Contains(content, "never offered for approval") {
		t.Errorf("the tool result does not say a write is never offered: %q", content)
	}
	if _, err := os.Stat(target); err == nil {
		t.Error("the refused write happened")
	}
	return ""
}

func scenarioSSHRefused(t *testing.T, e *agentsEnv, c agentClient, mcp bool) string {
	key := e.home + "/.ssh/id_rsa"
	run := c.start(t, e, agentCall{op: "read", path: key, mcp: mcp}, hookPathgrant)
	refused(t, e, c, run, key)
	noSecret(t, e, c, sshSecret)
	return ""
}

// scenarioSymlinkRefused reads a workspace symlink to a private file.
// Gemini CLI resolves the link itself and refuses the target before its
// own read_file's hook runs; that refusal counts as long as nothing
// reached the model, and the cell says so.
func scenarioSymlinkRefused(t *testing.T, e *agentsEnv, c agentClient, mcp bool) string {
	link, target := e.work+"/notes.txt", e.home+"/private/notes.txt"
	run := c.start(t, e, agentCall{op: "read", path: link, mcp: mcp}, hookPathgrant)
	note := ""
	if c.name() == "gemini" && !mcp {
		out := run.wait(t)
		content, _ := c.result(t, e)
		switch {
		case strings.Contains(content, "pathgrant: "):
		case strings.Contains(content, target+"' is ignored"):
			note = "Gemini refuses the link's target itself"
		default:
			t.Errorf("neither pathgrant nor Gemini refused the symlink: %q\n%s", content, out)
		}
		t.Logf("gemini: tool result %q", content)
	} else {
		refused(t, e, c, run, target)
	}
	noSecret(t, e, c, privateSecret)
	return note
}

// scenarioShellConfined has the model run `sh ./peek.sh`, a workspace
// script reading a private file outside the workspace. The guard allows
// the command (it cannot see into the script); the hook rewrites it to
// run under `pathgrant-confine exec`, where the file is out of reach: the script
// runs, its cat fails, and the file's bytes never reach the model. A
// client whose hook cannot rewrite (Qwen Code) has the command refused,
// pointed to the bridge's execute_shell_command, since it would run
// unconfined; the cell says which happened.
func scenarioShellConfined(t *testing.T, e *agentsEnv, c agentClient, _ bool) string {
	run := c.start(t, e, agentCall{op: "shell", command: "sh ./peek.sh"}, hookPathgrant)
	out := run.wait(t)
	content, ok := c.result(t, e)
	if !ok {
		t.Fatalf("no tool result reached the model; %s said:\n%s\ndaemon:\n%s", c.name(), out, e.log())
	}
	t.Logf("%s: tool result %q", c.name(), content)
	noSecret(t, e, c, peekSecret)
	var got shellOutcome
	switch {
	case strings.Contains(content, "peek-ran") && strings.Contains(content, "peek-exit=") && !strings.Contains(content, "peek-exit=0"):
		got = shellConfined
	case strings.Contains(content, "cannot hand a shell command to pathgrant to run confined"):
		got = shellRefused
	case strings.Contains(content, "pathgrant: ") || strings.Contains(content, "pathgrant denied"):
		got = "not rewritten: pathgrant denied it"
	default:
		got = "neither ran confined and failed to read nor was denied"
	}
	if want := wantShell(t, c.name()); got != want {
		t.Errorf("the script %s, want %s: %q\n%s said:\n%s\ndaemon:\n%s", got, want, content, c.name(), out, e.log())
	}
	return string(got)
}

// shellOutcome is how the shell row ended for a client.
type shellOutcome string

const (
	shellConfined shellOutcome = "ran confined; the file was out of its reach"
	shellRefused  shellOutcome = "refused: the client cannot run it confined (pathgrant's execute_shell_command can)"
)

// wantShell is the shell row's outcome the client table promises for the
// client named: a refusal that stops a client which should have run the
// command confined is a failure too.
func wantShell(t *testing.T, name string) shellOutcome {
	t.Helper()
	for _, ac := range agentClients {
		if ac.name == name {
			return ac.shell
		}
	}
	t.Fatalf("client %q is not in agentClients", name)
	return ""
}

// noSecret fails the test when secret is anywhere in what the client sent
// toward the model.
func noSecret(t *testing.T, e *agentsEnv, c agentClient, secret string) {
	t.Helper()
	if strings.Contains(c.sent(t, e), secret) {
		t.Errorf("%s sent %s to the model", c.name(), secret)
	}
}

// pathgrantRefusal reports whether a tool result is pathgrant's refusal
// of a read or write of path: the guard's reason naming them, from the
// hook ("pathgrant: …"), from the bridge as text ("pathgrant denied
// TOOL: …") or as its structured result (Codex hands the model an MCP
// tool's structured content: {"decision":"deny","reason":…}).
func pathgrantRefusal(content, path string) bool {
	says := strings.Contains(content, "pathgrant: ") || strings.Contains(content, "pathgrant denied ") ||
		strings.Contains(content, `"decision":"deny"`)
	return says && regexp.MustCompile(`\b(read|write) `+regexp.QuoteMeta(path)+` is outside`).MatchString(content)
}

// refused waits for the run and checks that pathgrant refused an access
// to path (the canonical path: a symlink's target): the model got
// pathgrant's reason naming it as the tool result (pathgrantRefusal),
// and nothing was offered for approval. It returns the tool result.
func refused(t *testing.T, e *agentsEnv, c agentClient, run *agentsRun, path string) string {
	t.Helper()
	out := run.wait(t)
	content, ok := c.result(t, e)
	if !ok {
		t.Fatalf("no tool result reached the model; %s said:\n%s\ndaemon:\n%s", c.name(), out, e.log())
	}
	if !pathgrantRefusal(content, path) {
		t.Errorf("the tool result is not pathgrant's refusal of %s: %q\n%s said:\n%s", path, content, c.name(), out)
	}
	if reqs, _ := e.client.Pending(context.Background()); len(reqs) != 0 {
		t.Errorf("offered for approval: %+v", reqs)
	}
	t.Logf("%s: tool result %q", c.name(), content)
	return content
}

// approveCLI approves request id for the session from the command line,
// as the user would from a terminal: `pathgrant approve ID --scope
// session --yes`, the code of that choice the headless daemon logs for the
// request (it may log it a moment after the request shows as pending)
// piped on its standard input, never on its command line.
func (e *agentsEnv) approveCLI(id string) string {
	e.t.Helper()
	code := ipctest.LogCode(e.t, e.log, id, "session")
	return e.pathgrantIn(code+"\n", "approve", id, "--scope", "session", "--yes", "--socket", e.sock)
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// agentClients are the real clients the matrix and the timing drive, by
// name; each constructor skips when its client is not installed. shell is
// what the README's client table promises for its shell tool: run
// confined, or refused where the client's hook cannot rewrite a command.
var agentClients = []struct {
	name  string
	mk    func(*testing.T) agentClient
	shell shellOutcome
}{
	{"claude", newClaudeClient, shellConfined},
	{"gemini", newGeminiClient, shellConfined},
	{"codex", newCodexClient, shellConfined},
	{"pi", newPiClient, shellConfined},
	{"copilot", newCopilotClient, shellConfined},
	{"qwen", newQwenClient, shellRefused},
	{"droid", newDroidClient, shellConfined},
	{"cline", newClineClient, shellConfined},
	{"opencode", newOpenCodeClient, shellConfined},
}

// afterScenarios is a client's own checks, in the environment its
// scenarios ran in (its hooks and bridge installed): how the client
// itself sees the hooks, and an uninstall that leaves its files as they
// were.
type afterScenarios interface {
	afterScenarios(t *testing.T, e *agentsEnv)
}

// TestAgentsMatrix runs every scenario over every real client, through
// its hooks and, where it has MCP, through pathgrant's bridge, and prints
// which client passed which scenario.
func TestAgentsMatrix(t *testing.T) {
	if testing.Short() {
		t.Skip("real agent clients are not run in -short mode")
	}
	results := map[string]map[string]string{}
	var names []string
	for _, ac := range agentClients {
		t.Run(ac.name, func(t *testing.T) {
			c := ac.mk(t)
			results[ac.name] = map[string]string{}
			names = append(names, ac.name)
			e := runAgentScenarios(t, c, results[ac.name])
			if a, ok := c.(afterScenarios); ok {
				a.afterScenarios(t, e)
			}
		})
	}
	t.Log("\n" + matrixTable(names, results))
}

// matrixTable renders client × scenario → its cell (pass, fail or n/a,
// with a note) as a Markdown table.
func matrixTable(clients []string, results map[string]map[string]string) string {
	var sb strings.Builder
	sb.WriteString("| scenario |")
	for _, c := range clients {
		sb.WriteString(" " + c + " |")
	}
	sb.WriteString("\n| --- |" + strings.Repeat(" --- |", len(clients)) + "\n")
	for _, s := range agentScenarios {
		sb.WriteString("| " + s.name + " |")
		for _, c := range clients {
			cell := results[c][s.name]
			if cell == "" {
				cell = "fail (not run)"
			}
			sb.WriteString(" " + cell + " |")
		}
		sb.WriteByte('\n')
	}
	return sb.String()
}
