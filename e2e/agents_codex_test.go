package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
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

// afterScenarios: Codex lists pathgrant's hooks as enabled and trusted,
// and uninstalling leaves its files as they were.
func (c *codexClient) afterScenarios(t *testing.T, e *agentsEnv) {
	t.Run("Codex lists the hooks as enabled and trusted", func(t *testing.T) {
		hooks := c.hooksList(t, e)
		events := map[string]bool{}
		for _, h := range hooks {
			if strings.Contains(h.Command, "pathgrant-hook") {
				events[h.EventName] = true
				if !h.Enabled || h.TrustStatus != "trusted" {
					t.Errorf("hook %+v: want enabled and trusted", h)
				}
			}
		}
		if !events["preToolUse"] || !events["permissionRequest"] {
			t.Errorf("pathgrant hooks for %v, want preToolUse and permissionRequest: %+v", events, hooks)
		}
	})

	t.Run("uninstall leaves config.toml and hooks.json as they were", func(t *testing.T) {
		e.pathgrant("install-mcp", "codex", "--uninstall") // the scenarios through the bridge registered it
		e.pathgrant("install-hooks", "codex", "--uninstall")
		cfg, _ := os.ReadFile(filepath.Join(e.home, ".codex", "config.toml"))
		if want := fmt.Sprintf(codexConfig, c.url); string(cfg) != want {
			t.Errorf("config.toml after uninstall:\n%s\nwant:\n%s", cfg, want)
		}
		if hooks, _ := os.ReadFile(filepath.Join(e.home, ".codex", "hooks.json")); strings.Contains(string(hooks), "pathgrant-hook") {
			t.Errorf("hooks.json after uninstall: %s", hooks)
		}
	})
}

// codexHook is one entry of Codex's own hook list (app-server hooks/list).
type codexHook struct {
	Key         string `json:"key"`
	EventName   string `json:"eventName"`
	Command     string `json:"command"`
	Enabled     bool   `json:"enabled"`
	TrustStatus string `json:"trustStatus"`
	CurrentHash string `json:"currentHash"`
}

// hooksList asks Codex which hooks it would run in the workspace, and
// whether each is trusted: `codex app-server` over stdio, initialize then
// hooks/list. This is how a health check can tell an installed hook that
// Codex would skip.
func (c *codexClient) hooksList(t *testing.T, e *agentsEnv) []codexHook {
	t.Helper()
	in := strings.Join([]string{
		`{"id":1,"method":"initialize","params":{"clientInfo":{"name":"pathgrant-e2e","version":"0"}}}`,
		`{"method":"initialized"}`,
		fmt.Sprintf(`{"id":2,"method":"hooks/list","params":{"cwds":[%q]}}`, e.work),
	}, "\n") + "\n"
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.bin, "app-server")
	cmd.Dir, cmd.Env = e.work, e.baseEnv("TMPDIR="+filepath.Join(e.root, "tmp"))
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatalf("codex app-server: %v", err)
	}
	defer func() { stdin.Close(); _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	io.WriteString(stdin, in)
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var msg struct {
			ID     int `json:"id"`
			Result struct {
				Data []struct {
					Hooks []codexHook `json:"hooks"`
				} `json:"data"`
			} `json:"result"`
		}
		if json.Unmarshal(sc.Bytes(), &msg) != nil || msg.ID != 2 {
			continue
		}
		var out []codexHook
		for _, d := range msg.Result.Data {
			out = append(out, d.Hooks...)
		}
		return out
	}
	t.Fatalf("codex app-server gave no hooks/list answer: %v", sc.Err())
	return nil
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

// codexTool is the model's call in Codex's shell tool, exec_command
// {cmd} (a read is a cat, a write a printf into the file), or the
// bridge's tool: Codex 0.169 offers an MCP server's tools as the
// Responses namespace mcp__SERVER, so the call names the namespace
// mcp__pathgrant and the tool.
func codexTool(call agentCall) modelTurn {
	if call.mcp {
		name, args := call.mcpTool()
		return modelTurn{tool: name, namespace: "mcp__pathgrant", args: args}
	}
	cmd := "cat " + shellQuote(call.path)
	switch call.op {
	case "write":
		cmd = "printf '%s' " + shellQuote(call.content) + " > " + shellQuote(call.path)
	case "shell":
		cmd = call.command
	}
	return modelTurn{tool: "exec_command", args: map[string]any{"cmd": cmd}}
}

func (c *codexClient) start(t *testing.T, e *agentsEnv, call agentCall, hook hookMode) *agentsRun {
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
	if hook == hookNone {
		args = append(args, "--disable", "hooks")
	}
	prompt := fmt.Sprintf("Please %s %s%s (%d)", call.op, call.path, call.command, time.Now().UnixNano())
	return startAgent(t, e.work, env, append(args, prompt)...)
}

func (c *codexClient) result(t *testing.T, e *agentsEnv) (string, bool) {
	return c.api.toolResult(callID(0))
}

func (c *codexClient) sent(t *testing.T, e *agentsEnv) string { return c.api.requestsJSON() }

func (c *codexClient) mcpName(tool string) string { return "mcp__pathgrant__" + tool }

func (c *codexClient) latencies() []time.Duration { return c.api.toolLatencies() }
