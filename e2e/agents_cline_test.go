package e2e

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The real Cline CLI, offline: a one-shot `cline --json PROMPT` with its
// session in process (CLINE_SESSION_BACKEND_MODE=local: no hub daemon
// left behind, and the hook runs under the cline process) against a
// local fake OpenAI-compatible chat completions endpoint (its
// openai-compatible provider, base URL on loopback), with pathgrant's
// hook script installed by `pathgrant install-hooks cline` into
// ~/.cline/hooks/PreToolUse. Cline approves every tool itself in a
// one-shot run: pathgrant is what decides.

// clineClient drives the Cline 3.0.65 binary.
type clineClient struct {
	bin string
	api *fakeChat
	url string
}

func newClineClient(t *testing.T) agentClient {
	t.Helper()
	bin := agentsClient(t, "Cline", "@cline/cli-linux-x64/bin/cline")
	c := &clineClient{bin: bin, api: &fakeChat{}}
	c.url = serveFake(t, c.api)
	return c
}

func (c *clineClient) name() string { return "cline" }

// clineProviders is the provider `cline auth -p openai-compatible` writes
// (Cline ignores an entry without updatedAt).
const clineProviders = `{"version": 1, "lastUsedProvider": "openai-compatible", "modes": {}, "providers": {"openai-compatible":
  {"settings": {"provider": "openai-compatible", "apiKey": "sk-e2e", "model": "e2e-model", "baseUrl": "%s/v1"}, "updatedAt": "2026-01-01T00:00:00.000Z", "tokenSource": "manual"}}}
`

func (c *clineClient) setup(t *testing.T, e *agentsEnv) {
	t.Helper()
	for _, dir := range []string{".cline", ".cline-unhooked"} {
		settings := filepath.Join(e.home, dir, "data", "settings")
		agentsWrite(t, filepath.Join(settings, "providers.json"), fmt.Appendf(nil, clineProviders, c.url))
		agentsWrite(t, filepath.Join(settings, "global-settings.json"), []byte(`{"telemetryOptOut": true}`+"\n"))
	}
	out := e.pathgrant("install-hooks", "cline", "--hook", e.hook, "--socket", e.sock)
	if want := "installed the pathgrant hook for cline in " + e.home + "/.cline/hooks/PreToolUse"; !strings.Contains(out, want) {
		t.Fatalf("install-hooks: %s", out)
	}
}

// clineTool is the model's call in Cline's tools: read_files {files:
// [{path}]}, editor {path, new_text}, run_commands {commands}; MCP tools
// are SERVER__TOOL.
func clineTool(call agentCall) modelTurn {
	switch {
	case call.mcp:
		tool, args := call.mcpTool()
		return modelTurn{tool: "pathgrant__" + tool, args: args}
	case call.op == "shell":
		return modelTurn{tool: "run_commands", args: map[string]any{"commands": []string{call.command}}}
	case call.op == "write":
		return modelTurn{tool: "editor", args: map[string]any{"path": call.path, "new_text": call.content}}
	}
	return modelTurn{tool: "read_files", args: map[string]any{"files": []any{map[string]any{"path": call.path}}}}
}

func (c *clineClient) start(t *testing.T, e *agentsEnv, call agentCall, hook hookMode) *agentsRun {
	t.Helper()
	c.api.script(clineTool(call), modelTurn{text: "Done."})
	dir := filepath.Join(e.home, ".cline")
	if hook == hookNone { // a Cline folder without pathgrant's hook
		dir = filepath.Join(e.home, ".cline-unhooked")
	}
	env := e.baseEnv("CLINE_DIR="+dir, "CLINE_SESSION_BACKEND_MODE=local", "NO_COLOR=1")
	prompt := fmt.Sprintf("Please %s %s%s (%d)", call.op, call.path, call.command, time.Now().UnixNano())
	return startAgent(t, e.work, env, c.bin, "--json", prompt)
}

// result is the tool's result and, after it, the context pathgrant's hook
// added (a refusal's reason comes to the model that way: Cline's file
// hooks cannot fail a call with a message of their own).
func (c *clineClient) result(t *testing.T, e *agentsEnv) (string, bool) {
	content, ok := c.api.toolResult(callID(0))
	for _, req := range c.api.requestsCopy() {
		msgs, _ := req["messages"].([]any)
		for _, it := range msgs {
			m, _ := it.(map[string]any)
			if text := textOf(m["content"]); m["role"] == "user" && strings.Contains(text, "<hook_context") && !strings.Contains(content, text) {
				content += "\n" + text
			}
		}
	}
	return content, ok
}

func (c *clineClient) sent(t *testing.T, e *agentsEnv) string { return c.api.requestsJSON() }

func (c *clineClient) mcpName(tool string) string { return "pathgrant__" + tool }

func (c *clineClient) latencies() []time.Duration { return c.api.toolLatencies() }
