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

// claudeTool is the model's call in Claude Code's tools: Read
// {file_path}, Write {file_path, content}, Bash {command}, or the bridge's
// tool as mcp__pathgrant__NAME.
func claudeTool(call agentCall) anthropicReply {
	switch {
	case call.mcp:
		name, args := call.mcpTool()
		return anthropicReply{tool: "mcp__pathgrant__" + name, input: args}
	case call.op == "shell":
		return anthropicReply{tool: "Bash", input: map[string]any{"command": call.command}}
	case call.op == "write":
		return anthropicReply{tool: "Write", input: map[string]any{"file_path": call.path, "content": call.content}}
	}
	return anthropicReply{tool: "Read", input: map[string]any{"file_path": call.path}}
}

// start runs Claude Code; unhooked, its settings switch every hook off
// (disableAllHooks), the rest of its configuration unchanged.
func (c *claudeClient) start(t *testing.T, e *agentsEnv, call agentCall, hook hookMode) *agentsRun {
	t.Helper()
	c.api.script(claudeTool(call), anthropicReply{text: "Done."})
	env := e.baseEnv("ANTHROPIC_BASE_URL="+c.url, "ANTHROPIC_API_KEY=sk-ant-e2e", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1")
	prompt := fmt.Sprintf("Please %s %s%s (%d)", call.op, call.path, call.command, time.Now().UnixNano())
	args := []string{c.bin, "-p", prompt, "--model", "claude-sonnet-4-5"}
	if hook == hookNone {
		args = append(args, "--settings", `{"disableAllHooks": true}`)
	}
	return startAgent(t, e.work, env, args...)
}

func (c *claudeClient) result(t *testing.T, e *agentsEnv) (string, bool) {
	content, _, ok := c.api.toolResult(toolUseID(1))
	return content, ok
}

func (c *claudeClient) sent(t *testing.T, e *agentsEnv) string { return c.api.requestsJSON() }

func (c *claudeClient) mcpName(tool string) string { return "mcp__pathgrant__" + tool }

func (c *claudeClient) latencies() []time.Duration { return c.api.toolLatencies() }

// geminiClient drives Gemini CLI with --fake-responses under `pathgrant
// run`, reading its tool results from its chat transcripts.
type geminiClient struct {
	node, bin string
	home      string // the home Gemini ran in last (its transcripts are there)
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

// geminiSettings are Gemini's offline settings: an API key (the fake
// responses need no network), no auto-update.
const geminiSettings = `{"security": {"auth": {"selectedType": "gemini-api-key"}}, "general": {"disableAutoUpdate": true}}`

func (c *geminiClient) setup(t *testing.T, e *agentsEnv) {
	t.Helper()
	c.home = e.home
	settings := filepath.Join(e.home, ".gemini", "settings.json")
	agentsWrite(t, settings, []byte(geminiSettings))
	out := e.pathgrant("install-hooks", "gemini", "--hook", e.hook, "--socket", e.sock)
	if !strings.Contains(out, "installed the pathgrant hook for gemini in "+settings) {
		t.Fatalf("install-hooks: %s", out)
	}
}

// geminiTool is the model's call in Gemini CLI's tools: read_file
// {file_path}, write_file {file_path, content}, run_shell_command
// {command}, or the bridge's tool as mcp_pathgrant_NAME (Gemini prefixes
// an MCP tool with mcp_ and its server's name).
func geminiTool(call agentCall) (string, map[string]any) {
	switch {
	case call.mcp:
		name, args := call.mcpTool()
		return "mcp_pathgrant_" + name, args
	case call.op == "shell":
		return "run_shell_command", map[string]any{"command": call.command}
	case call.op == "write":
		return "write_file", map[string]any{"file_path": call.path, "content": call.content}
	}
	return "read_file", map[string]any{"file_path": call.path}
}

// start runs Gemini CLI under `pathgrant run`; unhooked, it runs directly
// with GEMINI_CLI_HOME at a home of its own whose settings are the same
// but for the hooks (system settings cannot switch user hooks off). A call through the
// bridge runs Gemini directly too, with its hooks, as a hook-only
// client: Gemini strips every variable whose name holds TOKEN from an MCP
// server's environment, so under `pathgrant run` the bridge would name
// the session without its token and be refused (403). With the no-op
// hook it runs directly with its hooks: `pathgrant run` is pathgrant's
// cost, not the client's.
func (c *geminiClient) start(t *testing.T, e *agentsEnv, call agentCall, hook hookMode) *agentsRun {
	t.Helper()
	c.home = e.home
	if hook == hookNone {
		c.home = filepath.Join(e.root, "gemini-without-hooks")
		agentsWrite(t, filepath.Join(c.home, ".gemini", "settings.json"), []byte(geminiSettings))
	}
	os.RemoveAll(filepath.Join(c.home, ".gemini", "tmp")) // one run's transcript at a time
	tool, args := geminiTool(call)
	fake := filepath.Join(e.root, fmt.Sprintf("responses-%d.jsonl", time.Now().UnixNano()))
	agentsWrite(t, fake, []byte(geminiTurn(map[string]any{"functionCall": map[string]any{"name": tool, "args": args}})+
		geminiTurn(map[string]any{"text": "Done."})))
	// Gemini refuses file tools outside its own workspace before any hook
	// runs: the folders of the scenarios are added, so pathgrant decides.
	include := strings.Join([]string{e.dl, e.home + "/.ssh", e.home + "/private"}, ",")
	argv := []string{c.node, c.bin, "-m", "gemini-2.5-flash", "--fake-responses", fake, "--include-directories", include,
		"--output-format", "json", "--approval-mode", "yolo", "-p", fmt.Sprintf("Please %s %s%s", call.op, call.path, call.command)}
	env := e.baseEnv("GEMINI_API_KEY=e2e-key", "GEMINI_CLI_TRUST_WORKSPACE=true")
	switch {
	case hook == hookNone:
		return startAgent(t, e.work, append(env, "GEMINI_CLI_HOME="+c.home), argv...)
	case call.mcp || hook == hookNoop:
		return startAgent(t, e.work, env, argv...)
	}
	run := []string{e.bin, "run", "--workspace", e.work, "--agent", "gemini-cli", "--socket", e.sock, "--"}
	return startAgent(t, e.work, env, append(run, argv...)...)
}

// geminiTurn is one line of a --fake-responses file: a streamed turn
// holding part.
func geminiTurn(part map[string]any) string {
	return mustJSON(map[string]any{"method": "generateContentStream", "response": []any{map[string]any{
		"candidates":    []any{map[string]any{"content": map[string]any{"role": "model", "parts": []any{part}}, "finishReason": "STOP", "index": 0}},
		"usageMetadata": map[string]any{"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15}}}}) + "\n"
}

func (c *geminiClient) result(t *testing.T, e *agentsEnv) (string, bool) {
	results := geminiToolResults(t, c.home)
	if len(results) == 0 {
		return "", false
	}
	return results[0].output + results[0].err, true
}

// sent is the run's chat transcript: with --fake-responses there is no
// API, and the transcript is what the model would be sent.
func (c *geminiClient) sent(t *testing.T, e *agentsEnv) string { return geminiTranscript(c.home) }

// geminiTranscript is every chat transcript under home, concatenated.
func geminiTranscript(home string) string {
	files, _ := filepath.Glob(filepath.Join(home, ".gemini", "tmp", "*", "chats", "*.jsonl"))
	var sb strings.Builder
	for _, f := range files {
		if data, err := os.ReadFile(f); err == nil {
			sb.Write(data)
		}
	}
	return sb.String()
}

func (c *geminiClient) mcpName(tool string) string { return "mcp_pathgrant_" + tool }

func (c *geminiClient) latencies() []time.Duration { return geminiLatencies(geminiTranscript(c.home)) }

func mustJSON(v any) string {
	data, err := json.Marshal(v)
	if err != nil { // maps of strings, numbers and slices always marshal
		panic(err)
	}
	return string(data)
}

// geminiLatencies reads, from a chat transcript, the time from each model
// turn asking for tools (its record's timestamp, when the turn arrived)
// to the user record carrying their results: Gemini's side of the wire,
// at the transcript's millisecond resolution.
func geminiLatencies(transcript string) []time.Duration {
	var out []time.Duration
	var asked time.Time
	for _, line := range strings.Split(transcript, "\n") {
		var rec struct {
			Type      string            `json:"type"`
			Timestamp time.Time         `json:"timestamp"`
			ToolCalls []json.RawMessage `json:"toolCalls"`
			Content   json.RawMessage   `json:"content"`
		}
		if json.Unmarshal([]byte(line), &rec) != nil {
			continue
		}
		switch {
		case rec.Type == "gemini" && len(rec.ToolCalls) > 0 && asked.IsZero():
			asked = rec.Timestamp
		case rec.Type == "user" && !asked.IsZero() && strings.Contains(string(rec.Content), `"functionResponse"`):
			out = append(out, rec.Timestamp.Sub(asked))
			asked = time.Time{}
		}
	}
	return out
}
