package hooks

import (
	"os"
	"strings"
	"testing"
	"time"
)

// TestDescribeShell: each client's shell call, as its real client sends
// it (the recorded fixtures) or with the keys its shipped tool schema
// names, gives the agent's stated purpose and the client's own clock;
// a client whose tool has neither gives nothing.
func TestDescribeShell(t *testing.T) {
	fixture := func(name string) string {
		data, err := os.ReadFile("testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	claudeBash := func(input string) string {
		return `{"session_id":"s","cwd":"/home/user/work","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":` + input + `,"tool_use_id":"t"}`
	}
	qwenShell := func(input string) string {
		return `{"session_id":"s","cwd":"/home/user/work","hook_event_name":"PreToolUse","tool_name":"run_shell_command","tool_input":` + input + `}`
	}
	opencodeBash := func(args string) string {
		return opencodeCall("bash", args, "null")
	}
	tests := []struct {
		name, client, input string
		env                 map[string]string
		purpose             string
		clock               time.Duration
	}{
		{"Claude Code, recorded: its default 2 minutes", "claude", fixture("claude-code-2.1.328-pretooluse-bash.json"), nil,
			"Count the lines of the report", 2 * time.Minute},
		{"Claude Code, a timeout given", "claude", claudeBash(`{"command":"make","description":"Build","timeout":300000}`), nil,
			"Build", 5 * time.Minute},
		{"Claude Code, past its maximum", "claude", claudeBash(`{"command":"make","timeout":9000000}`), nil,
			"", 10 * time.Minute},
		{"Claude Code, BASH_DEFAULT_TIMEOUT_MS", "claude", claudeBash(`{"command":"make"}`), map[string]string{"BASH_DEFAULT_TIMEOUT_MS": "45000"},
			"", 45 * time.Second},
		{"Claude Code, BASH_MAX_TIMEOUT_MS", "claude", claudeBash(`{"command":"make","timeout":600000}`), map[string]string{"BASH_MAX_TIMEOUT_MS": "180000"},
			"", 3 * time.Minute},
		{"Claude Code, in the background", "claude", claudeBash(`{"command":"make","run_in_background":true}`), nil,
			"", 30 * time.Minute},
		{"Claude Code, a timeout that is no number", "claude", claudeBash(`{"command":"make","timeout":"soon"}`), nil,
			"", 2 * time.Minute},
		{"Codex, recorded: no clock named", "codex", fixture("codex-permissionrequest-bash-downloads.json"), nil,
			"Read the report", 0},
		{"Gemini CLI, recorded", "gemini", fixture("gemini-cli-0.61.0-beforetool-run_shell_command.json"), nil,
			"Show the header", 0},
		{"Qwen Code, recorded: its default 2 minutes", "qwen", fixture("qwen-code-0.24.4-pretooluse-run_shell_command.json"), nil,
			"test", 2 * time.Minute},
		{"Qwen Code, in the background", "qwen", qwenShell(`{"command":"make","is_background":true,"timeout":5000}`), nil,
			"", 0},
		{"GitHub Copilot CLI, recorded", "copilot", fixture("copilot-1.0.102-pretooluse-bash.json"), nil,
			"count lines", 0},
		{"Factory Droid, recorded: its summary", "droid", fixture("droid-0.225.2-pretooluse-execute.json"), nil,
			"Show the readme file", 0},
		{"Pi, a timeout in seconds", "pi", `{"hook_event_name":"tool_call","session_id":"s","cwd":"/w","tool_name":"bash","tool_call_id":"c","input":{"command":"make","timeout":90}}`, nil,
			"", 90 * time.Second},
		{"Pi, recorded: no clock", "pi", fixture("pi-tool_call-bash-downloads.json"), nil,
			"", 0},
		{"Cline, recorded: the command alone", "cline", fixture("cline-3.0.65-pretooluse-run_commands.json"), nil,
			"", 0},
		{"OpenCode, recorded: its default 2 minutes", "opencode", fixture("opencode-1.18.33-bash-downloads.json"), nil,
			"", 2 * time.Minute},
		{"OpenCode, a timeout in milliseconds", "opencode", opencodeBash(`{"command":"make","timeout":90000}`), nil,
			"", 90 * time.Second},
		{"OpenCode, OPENCODE_EXPERIMENTAL_BASH_DEFAULT_TIMEOUT_MS", "opencode", opencodeBash(`{"command":"make"}`),
			map[string]string{"OPENCODE_EXPERIMENTAL_BASH_DEFAULT_TIMEOUT_MS": "45000"}, "", 45 * time.Second},
		{"OpenCode, a timeout given beats the variable", "opencode", opencodeBash(`{"command":"make","timeout":5000}`),
			map[string]string{"OPENCODE_EXPERIMENTAL_BASH_DEFAULT_TIMEOUT_MS": "45000"}, "", 5 * time.Second},
		{"OpenCode, a timeout that is no number", "opencode", opencodeBash(`{"command":"make","timeout":"soon"}`), nil,
			"", 2 * time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := LookupClient(tt.client)
			if err != nil {
				t.Fatal(err)
			}
			call, err := c.adapter.parse([]byte(strings.TrimSpace(tt.input)))
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			if !call.Shell {
				t.Fatalf("%+v is not a shell call", call)
			}
			describeShell(&call, func(k string) string { return tt.env[k] })
			if call.Purpose != tt.purpose || call.ToolTimeout != tt.clock {
				t.Errorf("purpose %q, clock %v; want %q, %v", call.Purpose, call.ToolTimeout, tt.purpose, tt.clock)
			}
		})
	}
}
