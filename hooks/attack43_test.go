package hooks

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestAttack43PermissionRequestView: a check counts what a command's
// confinement view opens (ExecCommand set: the device policy's caches,
// toolchains) only for a command that runs confined whatever the hook
// answers. A Codex PermissionRequest is never rewritten, so there a
// command that is not in this build's own wrapper would run as it
// stands: judged without the view (an allow there would run
// ~/.cargo/bin/x or a write into ~/.cache unconfined).
func TestAttack43PermissionRequestView(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "pathgrant")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)
	const cmd = "mkdir -p ~/.cache/x && ~/.cargo/bin/tool"
	tests := []struct {
		name, client, event, command string
		want                         bool
	}{
		{"Codex PreToolUse, rewritten", "codex", "PreToolUse", cmd, true},
		{"Codex PermissionRequest, in its own wrapper", "codex", "PermissionRequest", ExecWrap(bin, "", testCap, cmd), true},
		{"Codex PermissionRequest, a plain command", "codex", "PermissionRequest", cmd, false},
		{"Codex PermissionRequest, another binary's wrapper", "codex", "PermissionRequest", ExecWrap("/tmp/x/pathgrant", "", testCap, cmd), false},
		{"Claude Code PreToolUse, rewritten", "claude", "PreToolUse", cmd, true},
		{"Cursor, never rewritten", "cursor", "beforeShellExecution", cmd, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c Call
			switch tt.client {
			case "cursor":
				c = Call{Client: "cursor", Event: tt.event, Shell: true, Accesses: []Access{{Command: tt.command}}}
			default:
				raw, _ := json.Marshal(map[string]any{"hook_event_name": tt.event, "session_id": "s", "cwd": "/w", "tool_name": "Bash",
					"tool_input": map[string]any{"command": tt.command}, "turn_id": "t"})
				var err error
				if tt.client == "codex" {
					c, err = codexAdapter{}.parse(raw)
				} else {
					c, err = claudeAdapter{}.parse(raw)
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			if got := runsConfined(c); got != tt.want {
				t.Errorf("runsConfined = %v, want %v (wrapped %v)", got, tt.want, c.Wrapped)
			}
		})
	}
}
