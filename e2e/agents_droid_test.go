package e2e

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The real Factory Droid, offline: `droid exec` in airgap mode
// (FACTORY_AIRGAP_ENABLED: no sign-in, telemetry or update check) with a
// bring-your-own custom model in ~/.factory/settings.json that speaks
// OpenAI chat completions to a local fake on loopback, and pathgrant's
// hook installed by `pathgrant install-hooks droid` into
// ~/.factory/hooks.json. --skip-permissions-unsafe switches Droid's own
// approval off: pathgrant is what decides.

// droidClient drives the droid 0.225.2 binary.
type droidClient struct {
	bin string
	api *fakeChat
	url string
}

func newDroidClient(t *testing.T) agentClient {
	t.Helper()
	bin := agentsClient(t, "Factory Droid", "@factory/cli-linux-x64/bin/droid")
	c := &droidClient{bin: bin, api: &fakeChat{}}
	c.url = serveFake(t, c.api)
	return c
}

func (c *droidClient) name() string { return "droid" }

// droidSettings is the custom model, custom:E2E-Model-0.
const droidSettings = `{"customModels": [{"model": "e2e-model", "displayName": "E2E Model", "baseUrl": "%s/v1",
  "apiKey": "sk-e2e", "provider": "generic-chat-completion-api", "maxOutputTokens": 4096}]}
`

func (c *droidClient) setup(t *testing.T, e *agentsEnv) {
	t.Helper()
	for _, home := range []string{e.home, filepath.Join(e.home, "unhooked")} {
		agentsWrite(t, filepath.Join(home, ".factory", "settings.json"), fmt.Appendf(nil, droidSettings, c.url))
	}
	out := e.pathgrant("install-hooks", "droid", "--hook", e.hook, "--socket", e.sock)
	if want := "installed the pathgrant hook for droid in " + e.home + "/.factory/hooks.json"; !strings.Contains(out, want) {
		t.Fatalf("install-hooks: %s", out)
	}
}

// droidTool is the model's call in Droid's tools: Read {file_path},
// Create {file_path, content}, Execute {command}; MCP tools are
// SERVER___TOOL.
func droidTool(call agentCall) modelTurn {
	switch {
	case call.mcp:
		tool, args := call.mcpTool()
		return modelTurn{tool: "pathgrant___" + tool, args: args}
	case call.op == "shell":
		return modelTurn{tool: "Execute", args: map[string]any{"command": call.command, "summary": "run it", "riskLevel": "low",
			"riskLevelReason": "it runs a workspace script"}}
	case call.op == "write":
		return modelTurn{tool: "Create", args: map[string]any{"file_path": call.path, "content": call.content}}
	}
	return modelTurn{tool: "Read", args: map[string]any{"file_path": call.path}}
}

func (c *droidClient) start(t *testing.T, e *agentsEnv, call agentCall, hook hookMode) *agentsRun {
	t.Helper()
	c.api.script(droidTool(call), modelTurn{text: "Done."})
	env := e.baseEnv("FACTORY_AIRGAP_ENABLED=1", "FACTORY_DROID_AUTO_UPDATE_ENABLED=false", "FACTORY_DISABLE_KEYRING=1", "NO_COLOR=1")
	if hook == hookNone { // a Droid home without pathgrant's hooks
		env = append(env, "FACTORY_HOME_OVERRIDE="+filepath.Join(e.home, "unhooked"))
	}
	prompt := fmt.Sprintf("Please %s %s%s (%d)", call.op, call.path, call.command, time.Now().UnixNano())
	return startAgent(t, e.work, env, c.bin, "exec", "-m", "custom:E2E-Model-0", "--skip-permissions-unsafe", prompt)
}

func (c *droidClient) result(t *testing.T, e *agentsEnv) (string, bool) {
	return c.api.toolResult(callID(0))
}

func (c *droidClient) sent(t *testing.T, e *agentsEnv) string { return c.api.requestsJSON() }

func (c *droidClient) mcpName(tool string) string { return "pathgrant___" + tool }

func (c *droidClient) latencies() []time.Duration { return c.api.toolLatencies() }
