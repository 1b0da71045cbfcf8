package e2e

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The real Qwen Code, offline: a headless `qwen PROMPT --yolo` against a
// local fake OpenAI-compatible chat completions endpoint (OPENAI_BASE_URL
// on loopback), with pathgrant's hook installed by `pathgrant
// install-hooks qwen` into ~/.qwen/settings.json. --yolo switches Qwen's
// own approval off: pathgrant is what decides. Qwen Code's hook cannot
// rewrite a shell command, so its shell row is the guard's refusal.

// qwenClient drives Qwen Code 0.24.4 under node.
type qwenClient struct {
	node, cli string
	api       *fakeChat
	url       string
}

func newQwenClient(t *testing.T) agentClient {
	t.Helper()
	cli := agentsClient(t, "Qwen Code", "@qwen-code/qwen-code/cli.js")
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	c := &qwenClient{node: node, cli: cli, api: &fakeChat{}}
	c.url = serveFake(t, c.api)
	return c
}

func (c *qwenClient) name() string { return "qwen" }

// qwenSettings keeps Qwen Code to the fake model and off the network.
const qwenSettings = `{"security": {"auth": {"selectedType": "openai"}}, "model": {"name": "e2e-model"},
  "privacy": {"usageStatisticsEnabled": false}, "telemetry": {"enabled": false}, "general": {"enableAutoUpdate": false}}
`

func (c *qwenClient) setup(t *testing.T, e *agentsEnv) {
	t.Helper()
	for _, dir := range []string{".qwen", ".qwen-unhooked"} {
		agentsWrite(t, filepath.Join(e.home, dir, "settings.json"), []byte(qwenSettings))
	}
	out := e.pathgrant("install-hooks", "qwen", "--hook", e.hook, "--socket", e.sock)
	if want := "installed the pathgrant hook for qwen in " + e.home + "/.qwen/settings.json"; !strings.Contains(out, want) {
		t.Fatalf("install-hooks: %s", out)
	}
}

// qwenTool is the model's call in Qwen Code's tools: read_file
// {file_path}, write_file {file_path, content}, run_shell_command
// {command}; MCP tools are mcp__SERVER__TOOL.
func qwenTool(call agentCall) modelTurn {
	switch {
	case call.mcp:
		tool, args := call.mcpTool()
		return modelTurn{tool: "mcp__pathgrant__" + tool, args: args}
	case call.op == "shell":
		return modelTurn{tool: "run_shell_command", args: map[string]any{"command": call.command, "description": "run it"}}
	case call.op == "write":
		return modelTurn{tool: "write_file", args: map[string]any{"file_path": call.path, "content": call.content}}
	}
	return modelTurn{tool: "read_file", args: map[string]any{"file_path": call.path}}
}

func (c *qwenClient) start(t *testing.T, e *agentsEnv, call agentCall, hook hookMode) *agentsRun {
	t.Helper()
	c.api.script(qwenTool(call), modelTurn{text: "Done."})
	home := filepath.Join(e.home, ".qwen")
	if hook == hookNone { // a Qwen home whose settings have no hook
		home = filepath.Join(e.home, ".qwen-unhooked")
	}
	env := e.baseEnv("QWEN_HOME="+home, "OPENAI_API_KEY=sk-e2e", "OPENAI_BASE_URL="+c.url+"/v1", "OPENAI_MODEL=e2e-model",
		"QWEN_USAGE_STATISTICS_ENABLED=false", "QWEN_CODE_DISABLE_PRECONNECT=1", "QWEN_DISABLE_AUTO_TITLE=1",
		"QWEN_CODE_NO_RELAUNCH=true", "NO_BROWSER=1", "NO_COLOR=1")
	prompt := fmt.Sprintf("Please %s %s%s (%d)", call.op, call.path, call.command, time.Now().UnixNano())
	return startAgent(t, e.work, env, c.node, c.cli, prompt, "--yolo", "--chat-recording", "false")
}

func (c *qwenClient) result(t *testing.T, e *agentsEnv) (string, bool) {
	return c.api.toolResult(callID(0))
}

func (c *qwenClient) sent(t *testing.T, e *agentsEnv) string { return c.api.requestsJSON() }

func (c *qwenClient) mcpName(tool string) string { return "mcp__pathgrant__" + tool }

func (c *qwenClient) latencies() []time.Duration { return c.api.toolLatencies() }
