package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The real GitHub Copilot CLI, offline: `copilot -p` in offline mode
// (COPILOT_OFFLINE: no GitHub sign-in, telemetry or update check) against
// a local fake OpenAI-compatible chat completions endpoint (its
// bring-your-own-model provider, COPILOT_PROVIDER_BASE_URL on loopback),
// with pathgrant's hooks installed by `pathgrant install-hooks copilot`
// into ~/.copilot/hooks. Copilot's own tool and path checks are off
// (--allow-all-tools --allow-all-paths): pathgrant is what decides.

// afterScenarios: uninstall removes pathgrant's hooks file.
func (c *copilotClient) afterScenarios(t *testing.T, e *agentsEnv) {
	t.Run("uninstall removes pathgrant's hooks file", func(t *testing.T) {
		e.pathgrant("install-hooks", "copilot", "--uninstall")
		if _, err := os.Stat(filepath.Join(e.home, ".copilot", "hooks", "pathgrant.json")); !os.IsNotExist(err) {
			t.Errorf("hooks file after uninstall: %v", err)
		}
	})
}

// copilotClient drives Copilot CLI 1.0.102's native binary.
type copilotClient struct {
	bin, cache string
	api        *fakeChat
	url        string
}

func newCopilotClient(t *testing.T) agentClient {
	t.Helper()
	bin := agentsClient(t, "GitHub Copilot CLI", "@github/copilot-linux-x64/copilot")
	// The binary unpacks its code under $XDG_CACHE_HOME on first run: one
	// cache beside the clients serves every test.
	c := &copilotClient{bin: bin, cache: filepath.Join(agentsDir(), "copilot-cache"), api: &fakeChat{}}
	c.url = serveFake(t, c.api)
	return c
}

func (c *copilotClient) name() string { return "copilot" }

func (c *copilotClient) setup(t *testing.T, e *agentsEnv) {
	t.Helper()
	out := e.pathgrant("install-hooks", "copilot", "--hook", e.hook, "--socket", e.sock)
	want := "installed the pathgrant hook for copilot in " + e.home + "/.copilot/hooks/pathgrant.json"
	if !strings.Contains(out, want) {
		t.Fatalf("install-hooks: %s", out)
	}
}

// copilotTool is the model's call in Copilot's tools (as offered to a
// gpt-4.1 model): view {path}, create {path, file_text}, bash {command};
// the bridge's tools are SERVER-TOOL.
func copilotTool(call agentCall) modelTurn {
	switch {
	case call.mcp:
		tool, args := call.mcpTool()
		return modelTurn{tool: "pathgrant-" + tool, args: args}
	case call.op == "shell":
		return modelTurn{tool: "bash", args: map[string]any{"command": call.command, "description": "run it"}}
	case call.op == "write":
		return modelTurn{tool: "create", args: map[string]any{"path": call.path, "file_text": call.content}}
	}
	return modelTurn{tool: "view", args: map[string]any{"path": call.path}}
}

func (c *copilotClient) start(t *testing.T, e *agentsEnv, call agentCall, hook hookMode) *agentsRun {
	t.Helper()
	c.api.script(copilotTool(call), modelTurn{text: "Done."})
	home := filepath.Join(e.home, ".copilot")
	if hook == hookNone { // a Copilot home without pathgrant's hooks
		home = filepath.Join(e.home, ".copilot-unhooked")
	}
	env := e.baseEnv("COPILOT_HOME="+home, "XDG_CACHE_HOME="+c.cache, "COPILOT_OFFLINE=true",
		"COPILOT_PROVIDER_BASE_URL="+c.url+"/v1", "COPILOT_PROVIDER_TYPE=openai", "COPILOT_PROVIDER_API_KEY=sk-e2e",
		"COPILOT_MODEL=gpt-4.1", "COPILOT_AUTO_UPDATE=false", "NO_COLOR=1")
	prompt := fmt.Sprintf("Please %s %s%s (%d)", call.op, call.path, call.command, time.Now().UnixNano())
	return startAgent(t, e.work, env, c.bin, "-p", prompt, "--allow-all-tools", "--allow-all-paths",
		"--no-auto-update", "--disable-client-telemetry", "--no-color")
}

func (c *copilotClient) result(t *testing.T, e *agentsEnv) (string, bool) {
	return c.api.toolResult(callID(0))
}

func (c *copilotClient) sent(t *testing.T, e *agentsEnv) string { return c.api.requestsJSON() }

func (c *copilotClient) mcpName(tool string) string { return "pathgrant-" + tool }

func (c *copilotClient) latencies() []time.Duration { return c.api.toolLatencies() }
