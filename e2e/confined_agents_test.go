package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"pathgrant/ipc/ipctest"
	"pathgrant/sandbox/heldfs"
	"pathgrant/wire"
)

// Shell commands the real Claude Code and Gemini CLI run are confined by
// default: hooks installed with `pathgrant install-hooks` only (no
// `pathgrant run`, no environment variable), so each session is a
// hook-only one and each allowed command is rewritten to run under
// `pathgrant-confine exec` with an exec capability. The commands run workspace
// scripts, which the guard allows (it cannot see into them): what stops
// them is the kernel.

// confinedCase is one shell command an agent runs, and what its tool
// result must show.
type confinedCase struct {
	name    string
	command string
	want    []string // in the tool result
	check   func(t *testing.T, e *confinedEnv)
}

// confinedEnv is an agentsEnv with a secret outside the workspace and the
// workspace scripts the cases run.
type confinedEnv struct {
	*agentsEnv
	secretPath string
	secret     string
}

func newConfinedEnv(t *testing.T, settings string) *confinedEnv {
	t.Helper()
	e := &confinedEnv{agentsEnv: newAgentsEnv(t)}
	e.secretPath = e.home + "/secret/key.txt"
	e.secret = fmt.Sprintf("pathgrant-secret-%d", time.Now().UnixNano())
	agentsWrite(t, e.secretPath, []byte(e.secret+"\n"))
	for name, body := range map[string]string{
		"leak.sh":     "cat " + e.secretPath + "\n",
		"settings.sh": "mkdir -p " + filepath.Dir(settings) + " && echo '{\"hooks\": {}}' > " + settings + "\n",
		"connect.py": fmt.Sprintf("import socket\ns = socket.socket(socket.AF_UNIX)\ns.connect(%q)\nprint('connected to pathgrant')\n",
			e.sock),
	} {
		agentsWrite(t, filepath.Join(e.work, name), []byte(body))
	}
	return e
}

// cases are the commands both agents run, for an agent whose workspace
// settings file is settings (relative to the workspace).
func (e *confinedEnv) cases(settings string) []confinedCase {
	return []confinedCase{
		{"a workspace script reading outside gets nothing, and is told why", "bash ./leak.sh",
			[]string{"pathgrant: " + e.secretPath + " is outside this session's permissions and cannot be approved"}, nil},
		{"a file at the workspace root", "echo hi > root.txt && cat root.txt", []string{"hi"},
			func(t *testing.T, e *confinedEnv) {
				if data, err := os.ReadFile(e.work + "/root.txt"); err != nil || string(data) != "hi\n" {
					t.Errorf("root.txt: %q %v", data, err)
				}
			}},
		{"a system interpreter", "python3 -c 'print(6*7)'", []string{"42"}, nil},
		{"the workspace's agent settings cannot be created", "bash ./settings.sh", []string{"Read-only file system"},
			func(t *testing.T, e *confinedEnv) {
				if _, err := os.Stat(filepath.Join(e.work, settings)); err == nil {
					t.Errorf("%s was created", settings)
				}
			}},
		{"pathgrant's socket cannot be reached", "python3 connect.py", []string{"Error"}, nil},
	}
}

// checkResult fails the test unless the tool result holds every wanted
// text, never the secret nor a connection to the socket.
func (e *confinedEnv) checkResult(t *testing.T, c confinedCase, result, agentOut string) {
	t.Helper()
	for _, want := range c.want {
		if !strings.Contains(result, want) {
			t.Errorf("tool result %q lacks %q\nagent:\n%s\ndaemon:\n%s", result, want, agentOut, e.log())
		}
	}
	if strings.Contains(result, e.secret) || strings.Contains(result, "connected to pathgrant") {
		t.Errorf("tool result %q escaped confinement", result)
	}
	if c.check != nil {
		c.check(t, e)
	}
	t.Logf("%s: tool result %q", c.name, result)
}

// hookedClaude installs the pathgrant hook for the real Claude Code in e's
// home and starts a fake Anthropic API on loopback for the test: the API,
// and the environment the agent runs with.
func hookedClaude(t *testing.T, e *agentsEnv) (*fakeAnthropic, []string) {
	t.Helper()
	if out := e.pathgrant("install-hooks", "claude", "--hook", e.hook, "--socket", e.sock); !strings.Contains(out, "installed the pathgrant hook for claude") {
		t.Fatalf("install-hooks: %s", out)
	}
	api := &fakeAnthropic{}
	srv := httptest.NewServer(api)
	t.Cleanup(srv.Close)
	return api, e.baseEnv("ANTHROPIC_BASE_URL="+srv.URL, "ANTHROPIC_API_KEY=sk-ant-e2e", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1")
}

// TestConfinedClaudeCode runs each case as a Bash tool call of the real
// Claude Code against the fake Anthropic API: the secret's bytes never
// reach the API.
func TestConfinedClaudeCode(t *testing.T) {
	if testing.Short() {
		t.Skip("real agent clients are not run in -short mode")
	}
	claude := agentsClient(t, "Claude Code", "@anthropic-ai/claude-code/bin/claude.exe")
	e := newConfinedEnv(t, ".claude/settings.json")
	api, env := hookedClaude(t, e.agentsEnv)
	for _, c := range e.cases(".claude/settings.json") {
		t.Run(c.name, func(t *testing.T) {
			api.script(anthropicReply{tool: "Bash", input: map[string]any{"command": c.command, "description": c.name}},
				anthropicReply{text: "Done."})
			run := startAgent(t, e.work, env, claude, "-p", fmt.Sprintf("Run %s (%d)", c.command, time.Now().UnixNano()),
				"--model", "claude-sonnet-4-5")
			out := run.wait(t)
			result, _, ok := api.toolResult(toolUseID(1))
			if !ok {
				t.Fatalf("no tool result sent; claude said:\n%s\ndaemon:\n%s", out, e.log())
			}
			e.checkResult(t, c, result, out)
			api.mu.Lock()
			sent, _ := json.Marshal(api.requests)
			api.mu.Unlock()
			if strings.Contains(string(sent), e.secret) {
				t.Errorf("the secret reached the API")
			}
		})
	}
}

// TestConfinedGeminiCLI runs each case as a run_shell_command call of the
// real Gemini CLI (--fake-responses): the secret's bytes are never in
// what its tools returned to the model.
func TestConfinedGeminiCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("real agent clients are not run in -short mode")
	}
	gemini := agentsClient(t, "Gemini CLI", "@google/gemini-cli/bundle/gemini.js")
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	e := newConfinedEnv(t, ".gemini/settings.json")
	settings := filepath.Join(e.home, ".gemini", "settings.json")
	agentsWrite(t, settings, []byte(`{"security": {"auth": {"selectedType": "gemini-api-key"}}, "general": {"disableAutoUpdate": true}}`))
	if out := e.pathgrant("install-hooks", "gemini", "--hook", e.hook, "--socket", e.sock); !strings.Contains(out, "installed the pathgrant hook for gemini") {
		t.Fatalf("install-hooks: %s", out)
	}
	env := e.baseEnv("GEMINI_API_KEY=e2e-key", "GEMINI_CLI_TRUST_WORKSPACE=true")
	for i, c := range e.cases(".gemini/settings.json") {
		t.Run(c.name, func(t *testing.T) {
			os.RemoveAll(filepath.Join(e.home, ".gemini", "tmp")) // one run's transcript at a time
			fake := filepath.Join(e.root, fmt.Sprintf("responses-%d.jsonl", i))
			agentsWrite(t, fake, []byte(geminiTurn(map[string]any{"functionCall": map[string]any{"name": "run_shell_command",
				"args": map[string]any{"command": c.command, "description": c.name}}})+geminiTurn(map[string]any{"text": "Done."})))
			run := startAgent(t, e.work, env, node, gemini, "-m", "gemini-2.5-flash", "--fake-responses", fake,
				"--output-format", "json", "--approval-mode", "yolo", "-p", "Run "+c.command)
			out := run.wait(t)
			results := geminiToolResults(t, e.home)
			if len(results) != 1 || results[0].name != "run_shell_command" {
				t.Fatalf("tool results %+v; gemini said:\n%s\ndaemon:\n%s", results, out, e.log())
			}
			e.checkResult(t, c, results[0].output+results[0].err, out)
		})
	}
}

// TestConfinedClaudeCodeHeldOpen: the real Claude Code runs `python3
// read.py`, a workspace script the guard allows and cannot see into,
// which opens ~/Downloads/report.csv. The rewritten command is paused in
// that open: one request appears, saying so, and is approved with the
// code from outside the agent; the same run prints the file and exits 0,
// and the script ran once (it counts its runs in the workspace).
func TestConfinedClaudeCodeHeldOpen(t *testing.T) {
	if testing.Short() {
		t.Skip("real agent clients are not run in -short mode")
	}
	claude := agentsClient(t, "Claude Code", "@anthropic-ai/claude-code/bin/claude.exe")
	e := newAgentsEnv(t)
	report := e.dl + "/report.csv"
	agentsWrite(t, e.work+"/read.py", []byte("with open('runs.txt', 'a') as f:\n    f.write('run\\n')\nprint(open("+
		fmt.Sprintf("%q", report)+").read(), end='')\n"))
	api, env := hookedClaude(t, e)
	api.script(anthropicReply{tool: "Bash", input: map[string]any{"command": "python3 read.py", "description": "read the report"}},
		anthropicReply{text: "Done."})
	run := startAgent(t, e.work, env, claude, "-p", "Run python3 read.py", "--model", "claude-sonnet-4-5")
	req := e.awaitPending(run, report)
	if req.Tool != "open (command paused)" || !strings.Contains(req.Held, "read.py") || req.Waiting != 1 {
		t.Errorf("the request %+v does not say that read.py is paused in the open", req)
	}
	if heldfs.Available() == nil && req.HeldBy != wire.HeldByFS {
		t.Errorf("the open was held by %q, not by pathgrant's file system, which this machine can mount\n%s", req.HeldBy, e.log())
	}
	if _, err := e.client.Decide(context.Background(), req.ID, wire.Decision{Scope: "once", Code: ipctest.LogCode(t, e.log, req.ID, "")}); err != nil {
		t.Fatalf("approve: %v\n%s", err, e.log())
	}
	out := run.wait(t)
	result, isError, ok := api.toolResult(toolUseID(1))
	if !ok || isError || !strings.Contains(result, strings.Split(string(e.report), "\n")[2]) {
		t.Fatalf("tool result %q (error %v, sent %v): want the report\nclaude:\n%s\ndaemon:\n%s", result, isError, ok, out, e.log())
	}
	if runs, _ := os.ReadFile(e.work + "/runs.txt"); string(runs) != "run\n" {
		t.Errorf("read.py ran %d times; want once", strings.Count(string(runs), "run"))
	}
	if pending, _ := e.client.Pending(context.Background()); len(pending) != 0 {
		t.Errorf("still pending after the approval: %+v", pending)
	}
	t.Logf("request %+v; tool result %q", req, result)
}
