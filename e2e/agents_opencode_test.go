package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// The real OpenCode, offline: `opencode run PROMPT` against a local fake
// OpenAI-compatible chat completions endpoint (a custom provider in the
// temporary home's ~/.config/opencode/opencode.json, base URL on
// loopback), with pathgrant's plugin installed by `pathgrant
// install-hooks opencode` into ~/.config/opencode/plugins, where OpenCode
// loads it into its own process.

// opencodeClient drives the OpenCode 1.18.33 binary.
type opencodeClient struct {
	bin string
	api *fakeChat
	url string
}

func newOpenCodeClient(t *testing.T) agentClient {
	t.Helper()
	c := &opencodeClient{bin: agentsClient(t, "OpenCode", "opencode-ai/bin/opencode.exe"), api: &fakeChat{}}
	c.url = serveFake(t, c.api)
	return c
}

func (c *opencodeClient) name() string { return "opencode" }

// opencodeConfig is a custom provider speaking OpenAI chat completions on
// loopback, and OpenCode's own question about a path outside the project
// answered yes: `opencode run` cannot ask it and rejects the call, and it
// would come after pathgrant's plugin has decided, so without this
// setting OpenCode, not pathgrant, would refuse every scenario's path.
// The model's id holds no "gpt-", so OpenCode offers write, not
// apply_patch.
const opencodeConfig = `{"provider": {"pathgrant-e2e": {"npm": "@ai-sdk/openai-compatible", "name": "pathgrant e2e",
  "options": {"baseURL": "%s/v1", "apiKey": "sk-e2e"}, "models": {"e2e-model": {"name": "e2e-model", "tool_call": true}}}},
  "model": "pathgrant-e2e/e2e-model", "autoupdate": false, "share": "disabled",
  "permission": {"external_directory": "allow"}}
`

// opencodePluginLock tells OpenCode that its config folder already has
// @opencode-ai/plugin: without it, OpenCode installs that package from
// the npm registry into every config folder that lacks it, and waits for
// the install before it loads any plugin. pathgrant's plugin imports
// Node's own modules only, so nothing is missing, and the runs stay off
// the network.
const opencodePluginLock = `{"lockfileVersion": 3, "packages": {"": {"dependencies": {"@opencode-ai/plugin": "1.18.33"}}}}
`

func (c *opencodeClient) setup(t *testing.T, e *agentsEnv) {
	t.Helper()
	dir := filepath.Join(e.home, ".config", "opencode")
	agentsWrite(t, filepath.Join(dir, "opencode.json"), fmt.Appendf(nil, opencodeConfig, c.url))
	agentsWrite(t, filepath.Join(dir, "package-lock.json"), []byte(opencodePluginLock))
	if err := os.Mkdir(filepath.Join(dir, "node_modules"), 0o700); err != nil {
		t.Fatal(err)
	}
	out := e.pathgrant("install-hooks", "opencode", "--hook", e.hook, "--socket", e.sock)
	if want := "installed the pathgrant hook for opencode in " + e.home + "/.config/opencode/plugins/pathgrant.js"; !strings.Contains(out, want) {
		t.Fatalf("install-hooks: %s", out)
	}
}

// opencodeTool is the model's call in OpenCode's tools: read {filePath},
// write {filePath, content}, bash {command, description}; an MCP tool is
// SERVER_TOOL.
func opencodeTool(call agentCall) modelTurn {
	switch {
	case call.mcp:
		tool, args := call.mcpTool()
		return modelTurn{tool: "pathgrant_" + tool, args: args}
	case call.op == "shell":
		return modelTurn{tool: "bash", args: map[string]any{"command": call.command, "description": "Runs the script"}}
	case call.op == "write":
		return modelTurn{tool: "write", args: map[string]any{"filePath": call.path, "content": call.content}}
	}
	return modelTurn{tool: "read", args: map[string]any{"filePath": call.path}}
}

// start runs OpenCode in the workspace; unhooked, with --pure, under
// which OpenCode runs the hooks of none of the plugins it finds, only of
// its own, the rest of its configuration unchanged. The temporary home holds OpenCode's configuration, data,
// cache and state (baseEnv sets no XDG folder); the variables keep it off
// the network. SHELL is a login shell's, as a person's OpenCode has it:
// the plugin confines a bash call only under a shell that reads its
// wrapper.
func (c *opencodeClient) start(t *testing.T, e *agentsEnv, call agentCall, hook hookMode) *agentsRun {
	t.Helper()
	c.api.script(opencodeTool(call), modelTurn{text: "Done."})
	env := e.baseEnv("OPENCODE_DISABLE_AUTOUPDATE=1", "OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_LSP_DOWNLOAD=1",
		"OPENCODE_DISABLE_SHARE=1", "NO_COLOR=1", "SHELL=/bin/bash")
	args := []string{c.bin, "run"}
	if hook == hookNone {
		args = append(args, "--pure")
	}
	prompt := fmt.Sprintf("Please %s %s%s (%d)", call.op, call.path, call.command, time.Now().UnixNano())
	return startAgent(t, e.work, env, append(args, prompt)...)
}

// result is the tool message OpenCode sent back for the call: a thrown
// plugin error (pathgrant's refusal) comes back as the tool's result too.
func (c *opencodeClient) result(t *testing.T, e *agentsEnv) (string, bool) {
	return c.api.toolResult(callID(0))
}

// sent is every request OpenCode made, its title request included.
func (c *opencodeClient) sent(t *testing.T, e *agentsEnv) string { return c.api.requestsJSON() }

func (c *opencodeClient) mcpName(tool string) string { return "pathgrant_" + tool }

func (c *opencodeClient) latencies() []time.Duration { return c.api.toolLatencies() }

// afterScenarios: uninstalling removes pathgrant's plugin and leaves
// opencode.json as setup wrote it (but for what OpenCode added itself),
// the bridge's entry gone.
func (c *opencodeClient) afterScenarios(t *testing.T, e *agentsEnv) {
	t.Run("uninstall removes the plugin and the bridge's entry", func(t *testing.T) {
		outer := e.t // e's helpers fail the test they run in
		e.t = t
		defer func() { e.t = outer }()
		dir := filepath.Join(e.home, ".config", "opencode")
		e.pathgrant("install-hooks", "opencode", "--uninstall")
		if _, err := os.Stat(filepath.Join(dir, "plugins", "pathgrant.js")); !os.IsNotExist(err) {
			t.Errorf("plugin after uninstall: %v", err)
		}
		e.pathgrant("install-mcp", "opencode", "--uninstall")
		var got, want map[string]any
		data, err := os.ReadFile(filepath.Join(dir, "opencode.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &got); err != nil {
			t.Fatalf("opencode.json after uninstall: %v\n%s", err, data)
		}
		if err := json.Unmarshal(fmt.Appendf(nil, opencodeConfig, c.url), &want); err != nil {
			t.Fatal(err)
		}
		delete(got, "$schema") // OpenCode's own, added to the file on its first run
		if !reflect.DeepEqual(got, want) {
			t.Errorf("opencode.json after uninstall:\n%s", data)
		}
	})
}
