package hooks

import (
	"fmt"
	"strings"
	"testing"
)

// TestClientTableComplete fails when any row of the hook's client table
// lacks a part: a client with no title or adapter could not be answered.
// The install-time parts are checked in clientconfig.
func TestClientTableComplete(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range clients {
		t.Run(c.Name, func(t *testing.T) {
			if c.Name == "" || seen[c.Name] {
				t.Fatalf("name %q is empty or repeated", c.Name)
			}
			seen[c.Name] = true
			if c.Title == "" {
				t.Errorf("no title")
			}
			if got, want := fmt.Sprintf("%T", c.adapter), "hooks."+c.Name+"Adapter"; got != want {
				t.Errorf("adapter is %s, want %s", got, want)
			}
		})
	}
}

// TestNoFileToolsReachTheAdapter: every tool a row lists as touching no
// local file is one its adapter marks so, before reading its input, and
// none is also an MCP tool name.
func TestNoFileToolsReachTheAdapter(t *testing.T) {
	inputs := map[string]string{ // the client's hook input for tool %s, its input not an object
		"claude":   `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":%q,"tool_input":null}`,
		"codex":    `{"hook_event_name":"PermissionRequest","cwd":"/w","tool_name":%q,"tool_input":null}`,
		"gemini":   `{"hook_event_name":"BeforeTool","cwd":"/w","tool_name":%q,"tool_input":null}`,
		"pi":       `{"hook_event_name":"tool_call","cwd":"/w","tool_name":%q,"input":null}`,
		"copilot":  `{"sessionId":"s","cwd":"/w","toolName":%q,"toolArgs":null}`,
		"qwen":     `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":%q,"tool_input":null}`,
		"droid":    `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":%q,"tool_input":null}`,
		"cline":    `{"hookName":"tool_call","workspaceRoots":["/w"],"tool_call":{"name":%q,"input":null}}`,
		"opencode": `{"hook_event_name":"tool.execute.before","cwd":"/w","tool_name":%q,"args":null,"mcp_servers":null}`,
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

// TestLookupUnknownClient: an unknown client is one clear error.
func TestLookupUnknownClient(t *testing.T) {
	_, err := LookupClient("vim")
	if err == nil || err.Error() != `unknown client "vim" (want `+strings.Join(Clients(), ", ")+`)` {
		t.Errorf("err = %v", err)
	}
}
