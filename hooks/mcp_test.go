package hooks_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"pathgrant/devicepolicy"
	"pathgrant/hooks"
	"pathgrant/wire"
)

// TestMCPTools: pathgrant's own MCP tools are let through (its bridge
// checks them) once the hook's check of the cwd bound the session, and
// denied when no daemon answers; another server's are asked of the
// daemon (an other-MCP check, never an allow), which leaves them to the
// client's own permission flow unless its device policy says
// unknown_tools = "deny"; with no daemon answering they are denied.
func TestMCPTools(t *testing.T) {
	daemons := map[string]*daemon{"": newDaemon(t), devicepolicy.DenyTool: newDaemon(t, toolSettings(devicepolicy.DenyTool, "")),
		devicepolicy.AskClient: newDaemon(t, toolSettings(devicepolicy.AskClient, ""))}
	const (
		claudeOwn   = `{"hook_event_name":"PreToolUse","session_id":"s","cwd":"/w","tool_name":"mcp__pathgrant__execute_shell_command","tool_input":{"command":"cat ~/.ssh/id_rsa"}}`
		claudeOther = `{"hook_event_name":"PreToolUse","session_id":"s","cwd":"/w","tool_name":"mcp__fs__read","tool_input":{}}`
		codexOwn    = `{"hook_event_name":"PreToolUse","session_id":"s","cwd":"/w","tool_name":"mcp__pathgrant__read_file","tool_input":{"path":"a"}}`
		codexOther  = `{"hook_event_name":"PermissionRequest","session_id":"s","cwd":"/w","tool_name":"mcp__fs__read","tool_input":{}}`
		geminiOwn   = `{"hook_event_name":"BeforeTool","session_id":"s","cwd":"/w","tool_name":"mcp_pathgrant_read_file","tool_input":{"path":"a"},"mcp_context":{"server_name":"pathgrant","tool_name":"read_file","command":"/usr/bin/pathgrant","args":["mcp"]}}`
		geminiNoCtx = `{"hook_event_name":"BeforeTool","session_id":"s","cwd":"/w","tool_name":"mcp_pathgrant_read_file","tool_input":{"path":"a"}}`
		geminiOther = `{"hook_event_name":"BeforeTool","session_id":"s","cwd":"/w","tool_name":"mcp_fs_read","tool_input":{},"mcp_context":{"server_name":"fs","tool_name":"read"}}`
		cursorOwn   = `{"hook_event_name":"beforeMCPExecution","conversation_id":"c","workspace_roots":["/w"],"tool_name":"read_file","tool_input":"{}","command":"/usr/local/bin/pathgrant mcp"}`
		cursorFake  = `{"hook_event_name":"beforeMCPExecution","conversation_id":"c","workspace_roots":["/w"],"tool_name":"read_file","tool_input":"{}","command":"/tmp/pathgrant mcp --evil"}`
		cursorOther = `{"hook_event_name":"beforeMCPExecution","conversation_id":"c","workspace_roots":["/w"],"tool_name":"q","tool_input":"{}","url":"http://x"}`
	)
	tests := []struct {
		name, client, input string
		unknown             string // the daemon's unknown_tools, "" for the default
		want                string // stdout, or a substring of it when wantSub
		wantSub             bool
		down                bool // no daemon answers
		bridge              bool // pathgrant's own tool: the hook binds the session with a check of the cwd
	}{
		{name: "claude own tool allowed", client: "claude", input: claudeOwn, want: `"permissionDecision":"allow"`, wantSub: true, bridge: true},
		{name: "claude own tool without a daemon", client: "claude", input: claudeOwn, want: "pathgrant is not running", wantSub: true, down: true},
		{name: "claude other server defers", client: "claude", input: claudeOther, want: "{}\n"},
		{name: "claude other server denied by policy", client: "claude", input: claudeOther, unknown: devicepolicy.DenyTool,
			want: `"permissionDecision":"deny"`, wantSub: true},
		{name: "claude other server without a daemon", client: "claude", input: claudeOther, want: "pathgrant is not running", wantSub: true, down: true},
		{name: "codex own tool: no objection", client: "codex", input: codexOwn, want: "", bridge: true},
		{name: "codex other server defers", client: "codex", input: codexOther, want: ""},
		{name: "codex other server denied by policy", client: "codex", input: codexOther, unknown: devicepolicy.DenyTool,
			want: `"behavior":"deny"`, wantSub: true},
		{name: "codex other server without a daemon", client: "codex", input: codexOther, want: `"behavior":"deny"`, wantSub: true, down: true},
		{name: "gemini own tool allowed", client: "gemini", input: geminiOwn, want: `{"decision":"allow"}` + "\n", bridge: true},
		{name: "gemini name alone is another server's", client: "gemini", input: geminiNoCtx, want: "{}\n"},
		{name: "gemini other server defers", client: "gemini", input: geminiOther, want: "{}\n"},
		{name: "gemini explicit ask-client", client: "gemini", input: geminiOther, unknown: devicepolicy.AskClient, want: "{}\n"},
		{name: "cursor own bridge allowed", client: "cursor", input: cursorOwn, want: `{"permission":"allow"}` + "\n", bridge: true},
		{name: "cursor other command is not the bridge", client: "cursor", input: cursorFake, want: `"permission":"ask"`, wantSub: true},
		{name: "cursor remote server defers", client: "cursor", input: cursorOther, want: `"permission":"ask"`, wantSub: true},
		{name: "cursor remote server denied by policy", client: "cursor", input: cursorOther, unknown: devicepolicy.DenyTool,
			want: `"permission":"deny"`, wantSub: true},
		{name: "cursor remote server without a daemon", client: "cursor", input: cursorOther, want: `"permission":"deny"`, wantSub: true, down: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := daemons[tt.unknown]
			env := map[string]string{"HOME": t.TempDir()}
			sock, input := d.sock, strings.ReplaceAll(tt.input, `"/w"`, `"`+d.work+`"`)
			if tt.down {
				sock = filepath.Join(env["HOME"], "no.sock")
			}
			res := hooks.Run(context.Background(), hooks.Options{Client: tt.client, Stdin: strings.NewReader(input),
				Getenv: func(k string) string { return env[k] }, Socket: sock})
			got := string(res.Stdout)
			if res.Exit != 0 || (tt.wantSub && !strings.Contains(got, tt.want)) || (!tt.wantSub && got != tt.want) {
				t.Fatalf("stdout %q exit %d (stderr %q), want %q", got, res.Exit, res.Stderr, tt.want)
			}
			switch {
			case tt.down && len(res.Answers) != 0:
				t.Fatalf("answers with no daemon: %+v", res.Answers)
			case tt.down:
			case tt.bridge && (len(res.Answers) != 1 || res.Answers[0].Path != d.work):
				t.Fatalf("the hook did not bind the session with a check of the cwd: %+v", res.Answers)
			case !tt.bridge && (len(res.Answers) != 1 || res.Answers[0].Rule != wire.RuleUnknownMCP || res.Answers[0].Allowed() ||
				res.Answers[0].LeftToClient != (tt.unknown != devicepolicy.DenyTool)):
				t.Fatalf("want the daemon's other-MCP answer under unknown_tools %q: %+v", tt.unknown, res.Answers)
			}
		})
	}
}
