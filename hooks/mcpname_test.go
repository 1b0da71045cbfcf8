package hooks_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"pathgrant/devicepolicy"
	"pathgrant/hooks"
	"pathgrant/hooks/clientconfig"
	"pathgrant/wire"
)

// mcpInputs build each client's hook input for a call of tool of the MCP
// server named server, in cwd, as the client names it (its shipped code:
// mcpname.go). Gemini CLI also names both apart in mcp_context; Cursor
// names neither, only the server's command; OpenCode's plugin sends its
// mcp settings, here the one server, started as pathgrant's bridge is,
// so that only the names tell the bridge from a look-alike.
var mcpInputs = map[string]func(server, tool, cwd string) string{
	"claude": func(s, t, cwd string) string { return claudeShape("PreToolUse", "mcp__"+s+"__"+t, cwd) },
	"codex":  func(s, t, cwd string) string { return claudeShape("PreToolUse", "mcp__"+s+"__"+t, cwd) },
	"qwen":   func(s, t, cwd string) string { return claudeShape("PreToolUse", "mcp__"+s+"__"+t, cwd) },
	"droid":  func(s, t, cwd string) string { return claudeShape("PreToolUse", s+"___"+t, cwd) },
	"gemini": func(s, t, cwd string) string {
		return fmt.Sprintf(`{"hook_event_name":"BeforeTool","session_id":"s","cwd":%q,"tool_name":%q,"tool_input":{},"mcp_context":{"server_name":%q,"tool_name":%q,"command":"/usr/bin/x"}}`,
			cwd, "mcp_"+s+"_"+t, s, t)
	},
	"copilot": func(s, t, cwd string) string {
		return fmt.Sprintf(`{"sessionId":"s","cwd":%q,"toolName":%q,"toolArgs":{}}`, cwd, s+"-"+t)
	},
	"cline": func(s, t, cwd string) string {
		return fmt.Sprintf(`{"hookName":"tool_call","taskId":"t","sessionContext":{"rootSessionId":"r"},"workspaceRoots":[%q],"workspaceInfo":{"rootPath":%q},"tool_call":{"id":"c","name":%q,"input":{}}}`,
			cwd, cwd, s+"__"+t)
	},
	"opencode": func(s, t, cwd string) string {
		return fmt.Sprintf(`{"hook_event_name":"tool.execute.before","session_id":"opencode-1","cwd":%q,"tool_name":%q,"call_id":"c","args":{},"mcp_servers":{%q:{"type":"local","command":["/usr/local/bin/pathgrant","mcp"],"enabled":true}}}`,
			cwd, s+"_"+t, s)
	},
	"cursor": func(s, t, cwd string) string {
		return fmt.Sprintf(`{"hook_event_name":"beforeMCPExecution","conversation_id":"c","workspace_roots":[%q],"tool_name":%q,"tool_input":"{}","command":%q}`,
			cwd, t, "/usr/local/bin/"+s+" mcp")
	},
}

func claudeShape(event, tool, cwd string) string {
	return fmt.Sprintf(`{"hook_event_name":%q,"session_id":"s","cwd":%q,"tool_name":%q,"tool_input":{}}`, event, cwd, tool)
}

// TestMCPBridgeNamesExact runs every client of the client table that has
// MCP servers through the real hook. pathgrant's own MCP tools, exactly
// the server `pathgrant` and one of the bridge's four tools, get
// pathgrant's handling: the hook binds the session with a check of the
// cwd, then lets the call through. Every look-alike (a server whose name
// starts with, holds or resembles pathgrant's, another server's tool
// named pathgrant, a tool the bridge does not have) is any other server's
// tool: it reaches the daemon only as an other-MCP check, gets no allow,
// and is left to the client under unknown_tools = "ask-client" or denied
// under "deny".
func TestMCPBridgeNamesExact(t *testing.T) {
	type name struct{ server, tool string }
	var exact []name
	for _, tool := range []string{"execute_shell_command", "read_file", "write_file", "list_directory"} {
		exact = append(exact, name{"pathgrant", tool})
	}
	lookAlikes := []name{
		{"pathgrant__x", "read_file"}, {"pathgrant___x", "read_file"}, {"pathgrant_x", "read_file"}, {"pathgrant-x", "read_file"},
		{"pathgrantx", "read_file"}, {"PATHGRANT", "read_file"}, {"Pathgrant", "write_file"}, {"xpathgrant", "read_file"},
		{"other", "pathgrant"}, {"other", "read_file"}, {"pathgrant", "pathgrant"}, {"pathgrant", "read_file_x"},
		{"pathgrant", "READ_FILE"}, {"pathgrant_read", "file"}, {"pathgrant_execute_shell", "command"}, {"pathgrant__read", "file"},
	}
	t.Run("every client with MCP servers is walked", func(t *testing.T) {
		for _, n := range hooks.Clients() {
			c, _ := clientconfig.LookupClient(n)
			if _, ok := mcpInputs[n]; (c.MCPConfig != "") != ok {
				t.Errorf("%s: MCP config %q, but an input builder: %v", n, c.MCPConfig, ok)
			}
		}
	})
	d := newDaemon(t)
	daemons := map[string]*daemon{"": d, devicepolicy.DenyTool: newDaemon(t, toolSettings(devicepolicy.DenyTool, ""))}
	for _, client := range hooks.Clients() {
		input, ok := mcpInputs[client]
		if !ok {
			continue
		}
		for _, n := range exact {
			t.Run(client+"/exact "+n.server+" "+n.tool, func(t *testing.T) {
				res := runMCP(t, client, input(n.server, n.tool, d.work), d.sock)
				switch {
				case !res.Call.MCP || !res.Call.Bridge:
					t.Fatalf("not taken for the bridge: %+v", res.Call)
				case !res.Verdict.Allow || !res.Verdict.Granted:
					t.Fatalf("verdict %+v, want pathgrant's allow (stdout %q)", res.Verdict, res.Stdout)
				case len(res.Answers) != 1 || res.Answers[0].Path != d.work:
					t.Fatalf("the hook did not bind the session with a check of the cwd: %+v", res.Answers)
				}
			})
		}
		for _, n := range lookAlikes {
			for _, policy := range []string{"", devicepolicy.DenyTool} {
				t.Run(fmt.Sprintf("%s/look-alike %s %s unknown_tools=%s", client, n.server, n.tool, policy), func(t *testing.T) {
					pd := daemons[policy]
					res := runMCP(t, client, input(n.server, n.tool, pd.work), pd.sock)
					switch {
					case !res.Call.MCP || res.Call.Bridge:
						t.Fatalf("want another server's MCP tool: %+v", res.Call)
					case res.Verdict.Allow || res.Verdict.Granted:
						t.Fatalf("allowed: %+v (stdout %q)", res.Verdict, res.Stdout)
					case len(res.Answers) != 1 || res.Answers[0].Rule != wire.RuleUnknownMCP || res.Answers[0].Path != "":
						t.Fatalf("want one other-MCP check of the daemon: %+v", res.Answers)
					case policy == "" && !res.Verdict.Defer:
						t.Fatalf("verdict %+v, want it left to the client (ask-client)", res.Verdict)
					case policy == devicepolicy.DenyTool && (res.Verdict.Defer || !strings.Contains(res.Verdict.Reason, `unknown_tools = "deny"`)):
						t.Fatalf("verdict %+v, want the policy's deny", res.Verdict)
					}
				})
			}
		}
	}
}

// TestGeminiBridgeNeedsItsContext: Gemini CLI's mcp_SERVER_TOOL names
// split more than one way (server `pathgrant_read`'s tool `file` is
// mcp_pathgrant_read_file too), so only the mcp_context Gemini sends
// names the bridge; the exact name without it, or with a context that
// names another tool, is any other server's.
func TestGeminiBridgeNeedsItsContext(t *testing.T) {
	d := newDaemon(t)
	cases := []struct {
		name, input string
		bridge      bool
	}{
		{"name and context agree", `{"hook_event_name":"BeforeTool","session_id":"s","cwd":"/w","tool_name":"mcp_pathgrant_read_file","tool_input":{},"mcp_context":{"server_name":"pathgrant","tool_name":"read_file"}}`, true},
		{"exact name without context", `{"hook_event_name":"BeforeTool","session_id":"s","cwd":"/w","tool_name":"mcp_pathgrant_read_file","tool_input":{}}`, false},
		{"context names another server", `{"hook_event_name":"BeforeTool","session_id":"s","cwd":"/w","tool_name":"mcp_pathgrant_read_file","tool_input":{},"mcp_context":{"server_name":"pathgrant_read","tool_name":"file"}}`, false},
		{"context and name disagree", `{"hook_event_name":"BeforeTool","session_id":"s","cwd":"/w","tool_name":"mcp_other_read_file","tool_input":{},"mcp_context":{"server_name":"pathgrant","tool_name":"read_file"}}`, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := runMCP(t, "gemini", strings.ReplaceAll(tc.input, `"/w"`, `"`+d.work+`"`), d.sock)
			if res.Call.Bridge != tc.bridge || res.Verdict.Allow != tc.bridge || !res.Call.MCP {
				t.Fatalf("call %+v verdict %+v, want bridge %v", res.Call, res.Verdict, tc.bridge)
			}
		})
	}
}

// runMCP runs the hook of client on input against the daemon at sock.
func runMCP(t *testing.T, client, input, sock string) hooks.Result {
	t.Helper()
	env := map[string]string{"HOME": t.TempDir()}
	return hooks.Run(context.Background(), hooks.Options{Client: client, Stdin: strings.NewReader(input),
		Getenv: func(k string) string { return env[k] }, Socket: sock})
}
