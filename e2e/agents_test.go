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
	"pathgrant/wire"
)

// The real agent clients, offline, with their hooks installed by
// `pathgrant install-hooks` and the real daemon deciding: a read of a
// Downloads file is denied and pending, approved from outside the agent
// (this test process, the agent's parent, never a descendant) while the
// hook waits, and the tool then returns the file's bytes; a write to
// Downloads is denied without any prompt.

func TestAgentsClaudeCode(t *testing.T) {
	if testing.Short() {
		t.Skip("real agent clients are not run in -short mode")
	}
	claude := agentsClient(t, "Claude Code", "@anthropic-ai/claude-code/bin/claude.exe")
	e := newAgentsEnv(t)
	out := e.pathgrant("install-hooks", "claude", "--hook", e.hook, "--socket", e.sock)
	if !strings.Contains(out, "installed the pathgrant hook for claude in "+e.home+"/.claude/settings.json") {
		t.Fatalf("install-hooks: %s", out)
	}

	api := &fakeAnthropic{}
	srv := httptest.NewServer(api)
	defer srv.Close()
	env := e.baseEnv("ANTHROPIC_BASE_URL="+srv.URL, "ANTHROPIC_API_KEY=sk-ant-e2e", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1")
	ask := func(prompt string) *agentsRun {
		return startAgent(t, e.work, env, claude, "-p", prompt, "--model", "claude-sonnet-4-5")
	}
	report := e.dl + "/report.csv"

	t.Run("Downloads read approved while the hook waits", func(t *testing.T) {
		api.script(anthropicReply{tool: "Read", input: map[string]any{"file_path": report}}, anthropicReply{text: "The report has two rows."})
		run := ask("Summarise ~/Downloads/report.csv")
		req := e.awaitPending(run, report)
		if req.Agent != "claude" || req.Tool != "Read" || req.Op != "read" || req.State != wire.StatePending {
			t.Errorf("approval request %+v", req)
		}
		if _, err := e.client.Decide(context.Background(), req.ID, wire.Decision{Scope: "once", Code: ipctest.LogCode(t, e.log, req.ID, "")}); err != nil {
			t.Fatalf("approve from outside the agent: %v\n%s", err, e.log())
		}
		out := run.wait(t)
		content, isError, ok := api.toolResult(toolUseID(1))
		if !ok || isError {
			t.Fatalf("tool result %q (error %v, sent %v); claude said:\n%s\ndaemon:\n%s", content, isError, ok, out, e.log())
		}
		for _, line := range strings.Split(strings.TrimSpace(string(e.report)), "\n") {
			if !strings.Contains(content, line) {
				t.Errorf("the Read result lacks %q:\n%s", line, content)
			}
		}
		t.Logf("approval request %+v; Read result %q", req, content)
		got, err := e.client.Request(context.Background(), req.ID)
		if err != nil || got.State != wire.StateApproved || got.Scope != "once" {
			t.Errorf("request after approval: %+v %v", got, err)
		}
	})

	t.Run("write to Downloads denied without a prompt", func(t *testing.T) {
		api.script(anthropicReply{tool: "Write", input: map[string]any{"file_path": e.dl + "/summary.txt", "content": "two rows\n"}},
			anthropicReply{text: "I could not write it."})
		run := ask("Write a summary to ~/Downloads/summary.txt")
		out := run.wait(t)
		content, isError, ok := api.toolResult(toolUseID(1))
		if !ok || !isError || !strings.Contains(content, "pathgrant: write "+e.dl+"/summary.txt is outside the workspace, and write outside it is never offered for approval") {
			t.Errorf("tool result %q (error %v, sent %v); claude said:\n%s", content, isError, ok, out)
		}
		t.Logf("Write result %q", content)
		if _, err := os.Stat(e.dl + "/summary.txt"); err == nil {
			t.Error("the denied write happened")
		}
		if reqs, _ := e.client.Pending(context.Background()); len(reqs) != 0 {
			t.Errorf("a write was offered for approval: %+v", reqs)
		}
	})

	t.Run("uninstall leaves the settings as they were", func(t *testing.T) {
		e.pathgrant("install-hooks", "claude", "--uninstall")
		var doc map[string]any
		data, _ := os.ReadFile(filepath.Join(e.home, ".claude", "settings.json"))
		if err := json.Unmarshal(data, &doc); err != nil || len(doc) != 0 {
			t.Errorf("settings after uninstall: %s", data)
		}
	})
}

func TestAgentsGeminiCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("real agent clients are not run in -short mode")
	}
	gemini := agentsClient(t, "Gemini CLI", "@google/gemini-cli/bundle/gemini.js")
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	e := newAgentsEnv(t)
	settings := filepath.Join(e.home, ".gemini", "settings.json")
	agentsWrite(t, settings, []byte(`{"security": {"auth": {"selectedType": "gemini-api-key"}}, "general": {"disableAutoUpdate": true}}`))
	out := e.pathgrant("install-hooks", "gemini", "--hook", e.hook, "--socket", e.sock)
	if !strings.Contains(out, "installed the pathgrant hook for gemini in "+settings) {
		t.Fatalf("install-hooks: %s", out)
	}
	env := e.baseEnv("GEMINI_API_KEY=e2e-key", "GEMINI_CLI_TRUST_WORKSPACE=true")
	report := e.dl + "/report.csv"
	// ask runs Gemini under `pathgrant run`, so its hook runs in the
	// session pathgrant registered (PATHGRANT_SESSION and _TOKEN). Gemini
	// refuses file tools outside its own workspace before any hook runs,
	// so Downloads is added to it: pathgrant is then what decides.
	ask := func(prompt string, flags []string, replies ...map[string]any) *agentsRun {
		var lines []string
		for _, r := range replies {
			line, _ := json.Marshal(map[string]any{"method": "generateContentStream", "response": []any{map[string]any{
				"candidates":    []any{map[string]any{"content": map[string]any{"role": "model", "parts": []any{r}}, "finishReason": "STOP", "index": 0}},
				"usageMetadata": map[string]any{"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15}}}})
			lines = append(lines, string(line))
		}
		fake := filepath.Join(e.root, fmt.Sprintf("responses-%d.jsonl", time.Now().UnixNano()))
		agentsWrite(t, fake, []byte(strings.Join(lines, "\n")+"\n"))
		argv := []string{e.bin, "run", "--workspace", e.work, "--agent", "gemini-cli", "--socket", e.sock, "--",
			node, gemini, "-m", "gemini-2.5-flash", "--fake-responses", fake, "--include-directories", e.dl, "--output-format", "json"}
		return startAgent(t, e.work, env, append(append(argv, flags...), "-p", prompt)...)
	}
	call := func(name string, args map[string]any) map[string]any {
		return map[string]any{"functionCall": map[string]any{"name": name, "args": args}}
	}
	text := func(s string) map[string]any { return map[string]any{"text": s} }

	t.Run("Downloads read approved while the hook waits", func(t *testing.T) {
		run := ask("Summarise ~/Downloads/report.csv", nil, call("read_file", map[string]any{"file_path": report}), text("The report has two rows."))
		req := e.awaitPending(run, report)
		// Agent "gemini-cli" is the name `pathgrant run` registered: the
		// request is in that session, not in a hook-only one.
		if req.Agent != "gemini-cli" || req.Tool != "read_file" || req.State != wire.StatePending {
			t.Errorf("approval request %+v: want one in the session pathgrant run registered", req)
		}
		if _, err := e.client.Decide(context.Background(), req.ID, wire.Decision{Scope: "once", Code: ipctest.LogCode(t, e.log, req.ID, "")}); err != nil {
			t.Fatalf("approve from outside the agent: %v", err)
		}
		out := run.wait(t)
		results := geminiToolResults(t, e.home)
		if len(results) != 1 || results[0].name != "read_file" || results[0].output != string(e.report) {
			t.Errorf("read_file returned %+v, want the report's bytes %q\ngemini:\n%s", results, e.report, out)
		}
		t.Logf("approval request %+v", req)
		got, err := e.client.Request(context.Background(), req.ID)
		if err != nil || got.State != wire.StateApproved {
			t.Errorf("request after approval: %+v %v", got, err)
		}
	})

	t.Run("write to Downloads denied without a prompt", func(t *testing.T) {
		os.RemoveAll(filepath.Join(e.home, ".gemini", "tmp"))
		// Without auto-approval Gemini offers no writing tool when it
		// cannot ask; with it, pathgrant is the only thing in the way.
		run := ask("Write a summary to ~/Downloads/summary.txt", []string{"--approval-mode", "yolo"},
			call("write_file", map[string]any{"file_path": e.dl + "/summary.txt", "content": "two rows\n"}), text("I could not write it."))
		out := run.wait(t)
		results := geminiToolResults(t, e.home)
		want := "pathgrant: write " + e.dl + "/summary.txt is outside the workspace, and write outside it is never offered for approval"
		if len(results) != 1 || results[0].name != "write_file" || !strings.Contains(results[0].output+results[0].err, want) {
			t.Errorf("write_file returned %+v, want the pathgrant deny\ngemini:\n%s", results, out)
		}
		t.Logf("write_file result %+v", results)
		if _, err := os.Stat(e.dl + "/summary.txt"); err == nil {
			t.Error("the denied write happened")
		}
		if reqs, _ := e.client.Pending(context.Background()); len(reqs) != 0 {
			t.Errorf("a write was offered for approval: %+v", reqs)
		}
	})
}

type geminiToolResult struct {
	name, output, err string
}

// geminiToolResults reads what Gemini's tools returned to the model from
// its chat transcripts (~/.gemini/tmp/*/chats/*.jsonl).
func geminiToolResults(t *testing.T, home string) []geminiToolResult {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(home, ".gemini", "tmp", "*", "chats", "*.jsonl"))
	var out []geminiToolResult
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(data), "\n") {
			var rec struct {
				Type    string `json:"type"`
				Content []struct {
					FunctionResponse *struct {
						Name     string `json:"name"`
						Response struct {
							Output string `json:"output"`
							Error  string `json:"error"`
						} `json:"response"`
					} `json:"functionResponse"`
				} `json:"content"`
			}
			if json.Unmarshal([]byte(line), &rec) != nil || rec.Type != "user" {
				continue
			}
			for _, c := range rec.Content {
				if fr := c.FunctionResponse; fr != nil {
					out = append(out, geminiToolResult{fr.Name, fr.Response.Output, fr.Response.Error})
				}
			}
		}
	}
	return out
}
