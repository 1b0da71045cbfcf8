package hooks

import (
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestClientTableComplete fails when any row of the client table lacks a
// part: a client added with no settings path, editor or protected files
// would install a hook that nothing protects, or none at all.
func TestClientTableComplete(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range clients {
		t.Run(c.Name, func(t *testing.T) {
			if c.Name == "" || seen[c.Name] {
				t.Fatalf("name %q is empty or repeated", c.Name)
			}
			seen[c.Name] = true
			v := reflect.ValueOf(c)
			for i := range v.NumField() {
				f := v.Type().Field(i)
				if f.Name == "DirEnv" || f.Name == "envHome" || f.Name == "mcpBesideDir" || f.Name == "mcpTOML" || f.Name == "ProjectNote" || f.Name == "Rewrites" || f.Name == "NoFileTools" || f.Name == "NoOwnFlow" || f.Name == "NoOwnTools" || f.Name == "ProjectMCPConfig" {
					continue // optional: not every client can be moved, rewrites a command, keeps its MCP servers beside its folder or in TOML, needs a step after a project install, has a tool that touches no file, lacks a permission flow of its own, or names tools of its own
				}
				if isMCPField(f.Name) && (c.noMCP != "") == !v.Field(i).IsZero() {
					t.Errorf("field %s: a client either has MCP servers (and every MCP field) or says why not in noMCP", f.Name)
					continue
				}
				if isMCPField(f.Name) || f.Name == "noMCP" {
					continue
				}
				if v.Field(i).IsZero() {
					t.Errorf("field %s is empty", f.Name)
				}
			}
			if got, want := fmt.Sprintf("%T", c.adapter), "hooks."+c.Name+"Adapter"; c.adapter != nil && got != want {
				t.Errorf("adapter is %s, want %s", got, want)
			}
			for _, rel := range append(slices.Clone(c.Protected), c.Settings) {
				if filepath.IsAbs(rel) || strings.HasPrefix(rel, "..") {
					t.Errorf("%s is not relative to the client's folder", rel)
				}
			}
			if !protects(c.Protected, c.Settings) {
				t.Errorf("settings %s is not among the protected %q", c.Settings, c.Protected)
			}
			if !protects(c.ProjectProtected, c.ProjectSettings) {
				t.Errorf("project settings %s is not among the protected %q", c.ProjectSettings, c.ProjectProtected)
			}
			if c.noMCP == "" && c.MCPConfig == "" {
				t.Errorf("no MCP configuration and no noMCP reason")
			}
			if p := c.ProjectMCPConfig; p != "" && !protects(ProjectProtected(), p) {
				t.Errorf("project MCP configuration %s is not protected", p)
			}
		})
	}
}

// TestNoFileToolsReachTheAdapter: every tool a row lists as touching no
// local file is one its adapter marks so, before reading its input, and
// none is also an MCP tool name.
func TestNoFileToolsReachTheAdapter(t *testing.T) {
	inputs := map[string]string{ // the client's hook input for tool %s, its input not an object
		"claude":  `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":%q,"tool_input":null}`,
		"codex":   `{"hook_event_name":"PermissionRequest","cwd":"/w","tool_name":%q,"tool_input":null}`,
		"gemini":  `{"hook_event_name":"BeforeTool","cwd":"/w","tool_name":%q,"tool_input":null}`,
		"pi":      `{"hook_event_name":"tool_call","cwd":"/w","tool_name":%q,"input":null}`,
		"copilot": `{"sessionId":"s","cwd":"/w","toolName":%q,"toolArgs":null}`,
		"qwen":    `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":%q,"tool_input":null}`,
		"droid":   `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":%q,"tool_input":null}`,
		"cline":   `{"hookName":"tool_call","workspaceRoots":["/w"],"tool_call":{"name":%q,"input":null}}`,
	}
	for _, c := range clients {
		for _, tool := range c.NoFileTools {
			t.Run(c.Name+"/"+tool, func(t *testing.T) {
				in, ok := inputs[c.Name]
				if !ok {
					t.Fatalf("no input shape for %s: add one", c.Name)
				}
				call, err := c.adapter.parse(fmt.Appendf(nil, in, tool))
				if err != nil || !call.NoFiles || call.MCP || len(call.Accesses) > 0 {
					t.Errorf("parsed %+v, %v; want a no-file call", call, err)
				}
			})
		}
	}
}

// TestNoOwnFlowBlocksADefer: a client without a permission flow of its
// own renders a call left to the client as a block; every other client
// renders it as no decision, never an allow or a deny.
func TestNoOwnFlowBlocksADefer(t *testing.T) {
	for _, c := range clients {
		t.Run(c.Name, func(t *testing.T) {
			out := c.adapter.render(Call{Client: c.Name}, Verdict{Defer: true, Reason: "pathgrant: left to the client"})
			s := string(out.Stdout)
			blocked := strings.Contains(s, `"block":true`) || strings.Contains(s, `"deny"`)
			if blocked != c.NoOwnFlow || strings.Contains(s, `"allow"`) || out.Exit != 0 {
				t.Errorf("a deferred call renders as %q exit %d (NoOwnFlow %v)", s, out.Exit, c.NoOwnFlow)
			}
		})
	}
}

// isMCPField names the row fields a client with MCP servers must fill.
func isMCPField(name string) bool {
	return name == "MCPConfig" || name == "ProjectMCPConfig" || name == "InstallMCP"
}

// protects reports whether path is one of the protected paths or below one.
func protects(protected []string, path string) bool {
	return slices.ContainsFunc(protected, func(p string) bool { return p == path || strings.HasPrefix(path, p+"/") })
}

// TestClientDirs pins where each client's user folder is, with and
// without the variable that moves it.
func TestClientDirs(t *testing.T) {
	const home = "/h"
	tests := []struct {
		client string
		env    map[string]string
		want   string
	}{
		{"claude", nil, "/h/.claude/settings.json"},
		{"claude", map[string]string{"CLAUDE_CONFIG_DIR": "/c"}, "/c/settings.json"},
		{"claude", map[string]string{"CLAUDE_CONFIG_DIR": "rel"}, "/h/.claude/settings.json"},
		{"codex", map[string]string{"CODEX_HOME": "/x/"}, "/x/hooks.json"},
		{"gemini", map[string]string{"GEMINI_CLI_HOME": "/g"}, "/g/.gemini/settings.json"},
		{"cursor", nil, "/h/.cursor/hooks.json"},
		{"pi", map[string]string{"PI_CODING_AGENT_DIR": "/p"}, "/p/extensions/pathgrant.ts"},
		{"copilot", nil, "/h/.copilot/hooks/pathgrant.json"},
		{"copilot", map[string]string{"COPILOT_HOME": "/cp"}, "/cp/hooks/pathgrant.json"},
		{"qwen", nil, "/h/.qwen/settings.json"},
		{"droid", nil, "/h/.factory/hooks.json"},
		{"cline", nil, "/h/.cline/hooks/PreToolUse"},
		{"cline", map[string]string{"CLINE_DIR": "/c"}, "/c/hooks/PreToolUse"},
		{"droid", map[string]string{"FACTORY_HOME_OVERRIDE": "/f"}, "/f/.factory/hooks.json"},
		{"qwen", map[string]string{"QWEN_HOME": "/q"}, "/q/settings.json"},
	}
	for _, tc := range tests {
		t.Run(tc.client, func(t *testing.T) {
			c, err := LookupClient(tc.client)
			if err != nil {
				t.Fatal(err)
			}
			getenv := func(k string) string { return tc.env[k] }
			if got := c.SettingsPath(getenv, home, ""); got != tc.want {
				t.Errorf("settings %s, want %s", got, tc.want)
			}
			if got := GlobalProtected(getenv, home); !protects(got, tc.want) {
				t.Errorf("%s is not protected: %q", tc.want, got)
			}
		})
	}
}

// TestLookupUnknownClient: an unknown client is one clear error.
func TestLookupUnknownClient(t *testing.T) {
	_, err := LookupClient("vim")
	if err == nil || err.Error() != `unknown client "vim" (want `+strings.Join(Clients(), ", ")+`)` {
		t.Errorf("err = %v", err)
	}
}
