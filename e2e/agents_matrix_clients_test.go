package e2e

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Claude Code and Gemini CLI as agentClients, driven as
// TestAgentsClaudeCode and TestAgentsGeminiCLI drive them, so that the
// matrix runs the same scenarios over all four clients.

// claudeClient drives Claude Code against fakeAnthropic.
type claudeClient struct {
	bin string
	api *fakeAnthropic
	url string
}

func newClaudeClient(t *testing.T) agentClient {
	t.Helper()
	c := &claudeClient{bin: agentsClient(t, "Claude Code", "@anthropic-ai/claude-code/bin/claude.exe"), api: &fakeAnthropic{}}
	srv := httptest.NewServer(c.api)
	t.Cleanup(srv.Close)
	c.url = srv.URL
	return c
}

func (c *claudeClient) name() string { return "claude" }

func (c *claudeClient) setup(t *testing.T, e *agentsEnv) {
	t.Helper()
	out := e.pathgrant("install-hooks", "claude", "--hook", e.hook, "--socket", e.sock)
	if !strings.Contains(out, "installed the pathgrant hook for claude") {
		t.Fatalf("install-hooks: %s", out)
	}
}

// start runs Claude Code; it is not timed, so it runs only hooked.
func (c *claudeClient) start(t *testing.T, e *agentsEnv, call agentCall, hooked bool) *agentsRun {
	t.Helper()
	if !hooked {
		t.Fatal("claude runs only with its hook here")
	}
	input := map[string]any{"file_path": call.path}
	tool := "Read"
	if call.op == "write" {
		tool, input["content"] = "Write", call.content
	}
	c.api.script(anthropicReply{tool: tool, input: input}, anthropicReply{text: "Done."})
	env := e.baseEnv("ANTHROPIC_BASE_URL="+c.url, "ANTHROPIC_API_KEY=sk-ant-e2e", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1")
	prompt := fmt.Sprintf("Please %s %s (%d)", call.op, call.path, time.Now().UnixNano())
	return startAgent(t, e.work, env, c.bin, "-p", prompt, "--model", "claude-sonnet-4-5")
}

func (c *claudeClient) result(t *testing.T, e *agentsEnv) (string, bool) {
	content, _, ok := c.api.toolResult(toolUseID(1))
	return content, ok
}

func (c *claudeClient) latencies() []time.Duration { return nil }

// geminiClient drives Gemini CLI with --fake-responses under `pathgrant
// run`, reading its tool results from its chat transcripts.
type geminiClient struct {
	node, bin string
}

func newGeminiClient(t *testing.T) agentClient {
	t.Helper()
	bin := agentsClient(t, "Gemini CLI", "@google/gemini-cli/bundle/gemini.js")
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	return &geminiClient{node: node, bin: bin}
}

func (c *geminiClient) name() string { return "gemini" }

func (c *geminiClient) setup(t *testing.T, e *agentsEnv) {
	t.Helper()
	settings := filepath.Join(e.home, ".gemini", "settings.json")
	agentsWrite(t, settings, []byte(`{"security": {"auth": {"selectedType": "gemini-api-key"}}, "general": {"disableAutoUpdate": true}}`))
	out := e.pathgrant("install-hooks", "gemini", "--hook", e.hook, "--socket", e.sock)
	if !strings.Contains(out, "installed the pathgrant hook for gemini in "+settings) {
		t.Fatalf("install-hooks: %s", out)
	}
}

// start runs Gemini CLI; it is not timed, so it runs only hooked.
func (c *geminiClient) start(t *testing.T, e *agentsEnv, call agentCall, hooked bool) *agentsRun {
	t.Helper()
	if !hooked {
		t.Fatal("gemini runs only with its hook here")
	}
	os.RemoveAll(filepath.Join(e.home, ".gemini", "tmp")) // one run's transcript at a time
	args := map[string]any{"file_path": call.path}
	tool := "read_file"
	if call.op == "write" {
		tool, args["content"] = "write_file", call.content
	}
	fake := filepath.Join(e.root, fmt.Sprintf("responses-%d.jsonl", time.Now().UnixNano()))
	agentsWrite(t, fake, []byte(geminiTurn(map[string]any{"functionCall": map[string]any{"name": tool, "args": args}})+
		geminiTurn(map[string]any{"text": "Done."})))
	// Gemini refuses file tools outside its own workspace before any hook
	// runs: the folders of the scenarios are added, so pathgrant decides.
	include := strings.Join([]string{e.dl, e.home + "/.ssh", e.home + "/private"}, ",")
	argv := []string{e.bin, "run", "--workspace", e.work, "--agent", "gemini-cli", "--socket", e.sock, "--",
		c.node, c.bin, "-m", "gemini-2.5-flash", "--fake-responses", fake, "--include-directories", include,
		"--output-format", "json", "--approval-mode", "yolo", "-p", fmt.Sprintf("Please %s %s", call.op, call.path)}
	env := e.baseEnv("GEMINI_API_KEY=e2e-key", "GEMINI_CLI_TRUST_WORKSPACE=true")
	return startAgent(t, e.work, env, argv...)
}

// geminiTurn is one line of a --fake-responses file: a streamed turn
// holding part.
func geminiTurn(part map[string]any) string {
	return mustJSON(map[string]any{"method": "generateContentStream", "response": []any{map[string]any{
		"candidates":    []any{map[string]any{"content": map[string]any{"role": "model", "parts": []any{part}}, "finishReason": "STOP", "index": 0}},
		"usageMetadata": map[string]any{"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15}}}}) + "\n"
}

func (c *geminiClient) result(t *testing.T, e *agentsEnv) (string, bool) {
	results := geminiToolResults(t, e.home)
	if len(results) == 0 {
		return "", false
	}
	return results[0].output + results[0].err, true
}

func (c *geminiClient) latencies() []time.Duration { return nil }

func mustJSON(v any) string {
	data, err := json.Marshal(v)
	if err != nil { // maps of strings, numbers and slices always marshal
		panic(err)
	}
	return string(data)
}
