package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// The real Codex CLI, offline: `codex exec` against a local fake of the
// OpenAI Responses API (a model provider in the temporary home's
// ~/.codex/config.toml whose base_url is loopback), with pathgrant's hook
// installed by `pathgrant install-hooks codex` and nothing else: no
// --dangerously-bypass-hook-trust, so the install must leave the hook
// enabled and trusted. Codex's own sandbox is off (danger-full-access):
// pathgrant is what decides.

func TestAgentsCodexCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("real agent clients are not run in -short mode")
	}
	runAgentScenarios(t, newCodexClient(t), nil)
}

// codexClient drives Codex CLI 0.169.0's native binary.
type codexClient struct {
	bin string
	api *fakeResponses
	url string
}

// codexBinary is where npm puts Codex's native binary for this machine.
func codexBinary() string {
	triple := map[string]string{"amd64": "x86_64-unknown-linux-musl", "arm64": "aarch64-unknown-linux-musl"}[runtime.GOARCH]
	arch := map[string]string{"amd64": "x64", "arm64": "arm64"}[runtime.GOARCH]
	return fmt.Sprintf("@openai/codex-linux-%s/vendor/%s/bin/codex", arch, triple)
}

func newCodexClient(t *testing.T) agentClient {
	t.Helper()
	agentsClient(t, "Codex CLI", "@openai/codex/package.json")
	c := &codexClient{bin: agentsClient(t, "Codex CLI (its native binary)", codexBinary()), api: &fakeResponses{}}
	c.url = serveFake(t, c.api)
	return c
}

func (c *codexClient) name() string { return "codex" }

// codexConfig points Codex at the fake API and turns off what would
// reach the network: update checks, analytics, feedback.
const codexConfig = `model = "gpt-5"
model_provider = "pathgrant-e2e"
check_for_update_on_startup = false

[analytics]
enabled = false

[feedback]
enabled = false

[history]
persistence = "none"

[model_providers.pathgrant-e2e]
name = "pathgrant e2e"
base_url = "%s/v1"
wire_api = "responses"
env_key = "PATHGRANT_E2E_OPENAI_KEY"
`

func (c *codexClient) setup(t *testing.T, e *agentsEnv) {
	t.Helper()
	agentsWrite(t, filepath.Join(e.home, ".codex", "config.toml"), fmt.Appendf(nil, codexConfig, c.url))
	out := e.pathgrant("install-hooks", "codex", "--hook", e.hook, "--socket", e.sock)
	if !strings.Contains(out, "installed the pathgrant hook for codex in "+e.home+"/.codex/hooks.json") {
		t.Fatalf("install-hooks: %s", out)
	}
	t.Logf("install-hooks codex: %s", out)
}

// codexTool is the model's call in Codex's shell tool: exec_command {cmd}.
func codexTool(call agentCall) modelTurn {
	cmd := "cat " + shellQuote(call.path)
	if call.op == "write" {
		cmd = "printf '%s' " + shellQuote(call.content) + " > " + shellQuote(call.path)
	}
	return modelTurn{tool: "exec_command", args: map[string]any{"cmd": cmd}}
}

func (c *codexClient) start(t *testing.T, e *agentsEnv, call agentCall, hooked bool) *agentsRun {
	t.Helper()
	c.api.script(codexTool(call), modelTurn{text: "Done."})
	// Codex refuses to create its helper binaries under the temporary
	// folder, and its sandbox needs them; TMPDIR elsewhere keeps it quiet.
	tmp := filepath.Join(e.root, "tmp")
	if err := os.MkdirAll(tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	env := e.baseEnv("PATHGRANT_E2E_OPENAI_KEY=sk-e2e", "TMPDIR="+tmp, "NO_COLOR=1")
	args := []string{c.bin, "exec", "--skip-git-repo-check", "--sandbox", "danger-full-access", "--color", "never"}
	if !hooked {
		args = append(args, "--disable", "hooks")
	}
	prompt := fmt.Sprintf("Please %s %s (%d)", call.op, call.path, time.Now().UnixNano())
	return startAgent(t, e.work, env, append(args, prompt)...)
}

func (c *codexClient) result(t *testing.T, e *agentsEnv) (string, bool) {
	return c.api.toolResult(callID(0))
}

func (c *codexClient) latencies() []time.Duration { return c.api.toolLatencies() }
