package e2e

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The real Pi coding agent, offline: `pi -p` against a local fake
// OpenAI-compatible chat completions endpoint (a custom provider in the
// temporary home's ~/.pi/agent/models.json, loopback base URL), with
// pathgrant's extension installed by `pathgrant install-hooks pi` into
// ~/.pi/agent/extensions, where Pi discovers it by itself.

// piClient drives Pi 0.73.1 under node.
type piClient struct {
	node, cli string
	api       *fakeChat
	url       string
}

func newPiClient(t *testing.T) agentClient {
	t.Helper()
	cli := agentsClient(t, "Pi", "@mariozechner/pi-coding-agent/dist/cli.js")
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	c := &piClient{node: node, cli: cli, api: &fakeChat{}}
	c.url = serveFake(t, c.api)
	return c
}

func (c *piClient) name() string { return "pi" }

// piModels is a custom provider speaking OpenAI chat completions on
// loopback; the compat flags keep Pi to what the fake answers.
const piModels = `{"providers": {"pathgrant-e2e": {"baseUrl": "%s/v1", "api": "openai-completions", "apiKey": "PATHGRANT_E2E_OPENAI_KEY",
  "compat": {"supportsDeveloperRole": false, "supportsReasoningEffort": false},
  "models": [{"id": "e2e-model", "reasoning": false, "input": ["text"], "contextWindow": 128000, "maxTokens": 4096}]}}}
`

func (c *piClient) setup(t *testing.T, e *agentsEnv) {
	t.Helper()
	agentsWrite(t, filepath.Join(e.home, ".pi", "agent", "models.json"), fmt.Appendf(nil, piModels, c.url))
	agentsWrite(t, filepath.Join(e.home, ".pi", "agent", "settings.json"), []byte(`{"enableInstallTelemetry": false}`+"\n"))
	out := e.pathgrant("install-hooks", "pi", "--hook", e.hook, "--socket", e.sock)
	want := "installed the pathgrant hook for pi in " + e.home + "/.pi/agent/extensions/pathgrant.ts"
	if !strings.Contains(out, want) {
		t.Fatalf("install-hooks: %s", out)
	}
}

// piTool is the model's call in Pi's tools: read {path}, write {path,
// content}, bash {command}.
func piTool(call agentCall) modelTurn {
	switch call.op {
	case "shell":
		return modelTurn{tool: "bash", args: map[string]any{"command": call.command}}
	case "write":
		return modelTurn{tool: "write", args: map[string]any{"path": call.path, "content": call.content}}
	}
	return modelTurn{tool: "read", args: map[string]any{"path": call.path}}
}

func (c *piClient) start(t *testing.T, e *agentsEnv, call agentCall, hook hookMode) *agentsRun {
	t.Helper()
	c.api.script(piTool(call), modelTurn{text: "Done."})
	env := e.baseEnv("PATHGRANT_E2E_OPENAI_KEY=sk-e2e", "PI_OFFLINE=1", "PI_SKIP_VERSION_CHECK=1", "PI_TELEMETRY=0", "NO_COLOR=1")
	args := []string{c.node, c.cli, "-p", "--provider", "pathgrant-e2e", "--model", "e2e-model"}
	if hook == hookNone {
		args = append(args, "--no-extensions")
	}
	prompt := fmt.Sprintf("Please %s %s%s (%d)", call.op, call.path, call.command, time.Now().UnixNano())
	return startAgent(t, e.work, env, append(args, prompt)...)
}

func (c *piClient) result(t *testing.T, e *agentsEnv) (string, bool) {
	return c.api.toolResult(callID(0))
}

func (c *piClient) sent(t *testing.T, e *agentsEnv) string { return c.api.requestsJSON() }

// mcpName is "": Pi has no MCP client.
func (c *piClient) mcpName(string) string { return "" }

func (c *piClient) latencies() []time.Duration { return c.api.toolLatencies() }
