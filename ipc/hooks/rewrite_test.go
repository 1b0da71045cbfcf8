package hooks_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"pathgrant/appdirs"
	"pathgrant/ipc/hooks"
)

// TestExecRewrite: with PATHGRANT_EXEC=1 an allowed shell command comes
// back rewritten to run under `pathgrant exec` (Claude's updatedInput,
// Gemini's hookSpecificOutput.tool_input), other input fields kept; a
// denied one, another tool, or the setting off rewrites nothing.
func TestExecRewrite(t *testing.T) {
	d := newDaemon(t)
	claudeBash := func(cmd string) string {
		return `{"session_id":"c-1","cwd":"` + d.work + `","hook_event_name":"PreToolUse","tool_name":"Bash",` +
			`"tool_input":{"command":` + quoteJSON(cmd) + `,"description":"list"},"tool_use_id":"t1"}`
	}
	geminiShell := func(cmd string) string {
		return `{"session_id":"g-1","cwd":"` + d.work + `","hook_event_name":"BeforeTool","tool_name":"run_shell_command",` +
			`"tool_input":{"command":` + quoteJSON(cmd) + `}}`
	}
	wrapped := `pathgrant exec -- bash -c 'ls -la '\''my dir'\'''`
	tests := []struct {
		name, client, input, exec string
		want                      string // the rewritten command, "" for none
	}{
		{"claude allowed", "claude", claudeBash("ls -la 'my dir'"), "1", wrapped},
		{"gemini allowed", "gemini", geminiShell("ls -la 'my dir'"), "1", wrapped},
		{"setting off", "claude", claudeBash("ls"), "", ""},
		{"denied command", "claude", claudeBash("rm ~/Downloads/report.csv"), "1", ""},
		{"not a shell tool", "claude", `{"session_id":"c-2","cwd":"` + d.work + `","hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"` + d.work + `/main.go"},"tool_use_id":"t2"}`, "1", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := map[string]string{appdirs.ExecEnv: tt.exec, appdirs.WaitEnv: "0"}
			res := hooks.Run(context.Background(), hooks.Options{Client: tt.client, Stdin: strings.NewReader(tt.input),
				Socket: d.sock, Getenv: func(k string) string { return env[k] }})
			got := rewrittenCommand(t, tt.client, res.Stdout)
			if got != tt.want {
				t.Fatalf("rewritten command %q, want %q (stdout %s)", got, tt.want, res.Stdout)
			}
			if tt.want != "" && tt.client == "claude" && !strings.Contains(string(res.Stdout), `"description":"list"`) {
				t.Fatalf("other input fields lost: %s", res.Stdout)
			}
		})
	}
}

func rewrittenCommand(t *testing.T, client string, stdout []byte) string {
	t.Helper()
	var out struct {
		Hook struct {
			Updated   map[string]any `json:"updatedInput"`
			ToolInput map[string]any `json:"tool_input"`
		} `json:"hookSpecificOutput"`
	}
	if len(stdout) > 0 && json.Unmarshal(stdout, &out) != nil {
		t.Fatalf("stdout is not JSON: %s", stdout)
	}
	in := out.Hook.Updated
	if client == "gemini" {
		in = out.Hook.ToolInput
	}
	cmd, _ := in["command"].(string)
	return cmd
}

func quoteJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
