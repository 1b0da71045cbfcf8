package hooks

import (
	"encoding/json"
	"os"
	"path/filepath"
	"pathgrant/wire"
	"strings"
	"testing"
)

const testCap = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// TestUnwrapExec: only the exact wrapper ExecWrap makes for this build's
// pathgrant, with a capability, is unwrapped.
func TestUnwrapExec(t *testing.T) {
	const bin = "/opt/pg/bin/pathgrant"
	inner := `cat 'a b.txt' | grep "x" && echo it's`
	tests := []struct {
		name, text, want string
		ok               bool
	}{
		{"own wrapper", ExecWrap(bin, "", testCap, inner), inner, true},
		{"own wrapper, plain command", ExecWrap(bin, "", testCap, "ls -la"), "ls -la", true},
		{"own wrapper with the hook's socket", ExecWrap(bin, "/run/user/1000/pathgrant.sock", testCap, inner), inner, true},
		{"a socket with a quote", ExecWrap(bin, "/tmp/a'b.sock", testCap, "ls"), "", false},
		{"another binary", ExecWrap("/tmp/evil/pathgrant", "", testCap, "ls"), "", false},
		{"a relative binary", ExecWrap("pathgrant", "", testCap, "ls"), "", false},
		{"no capability", ExecWrap(bin, "", "", "ls"), "", false},
		{"a capability that is not one", ExecWrap(bin, "", "$(touch x)", "ls"), "", false},
		{"something after the wrapper", ExecWrap(bin, "", testCap, "ls") + "; rm -rf ~", "", false},
		{"an unescaped quote inside", wire.CapEnv + "='" + testCap + "' '" + bin + "' exec -- bash -c 'ls' 'x'", "", false},
		{"another program than exec", wire.CapEnv + "='" + testCap + "' '" + bin + "' approve -- bash -c 'ls'", "", false},
		{"not a wrapper", "ls -la", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := UnwrapExec(tt.text, bin)
			if got != tt.want || ok != tt.ok {
				t.Errorf("UnwrapExec(%q) = %q, %v; want %q, %v", tt.text, got, ok, tt.want, tt.ok)
			}
		})
	}
}

// TestCodexPermissionRequestUnwraps: Codex's PermissionRequest about the
// command as the hook rewrote it is judged as the command inside, when
// the wrapper runs this build's pathgrant; any other wrapper is judged as
// it stands.
func TestCodexPermissionRequestUnwraps(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "pathgrant")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)
	own, err := FindExecBinary()
	if err != nil || own != bin {
		t.Fatalf("FindExecBinary = %q, %v; want %q", own, err, bin)
	}
	tests := []struct {
		name, event, command, judged string
	}{
		{"own wrapper", "PermissionRequest", ExecWrap(bin, "", testCap, "cat ~/Downloads/r.csv"), "cat ~/Downloads/r.csv"},
		{"a wrapper naming another binary", "PermissionRequest", ExecWrap("/tmp/x/pathgrant", "", testCap, "true"),
			ExecWrap("/tmp/x/pathgrant", "", testCap, "true")},
		{"a plain command", "PermissionRequest", "ls", "ls"},
		{"PreToolUse is never unwrapped", "PreToolUse", ExecWrap(bin, "", testCap, "true"), ExecWrap(bin, "", testCap, "true")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw, _ := json.Marshal(map[string]any{"hook_event_name": tt.event, "session_id": "s", "cwd": "/w", "tool_name": "Bash",
				"tool_input": map[string]any{"command": tt.command, "timeout": 5}, "turn_id": "t"})
			c, err := codexAdapter{}.parse(raw)
			if err != nil {
				t.Fatal(err)
			}
			want := "cd -- '/w' && " + tt.judged
			if len(c.Accesses) != 1 || c.Accesses[0].Command != want {
				t.Errorf("accesses %+v; want the command %q", c.Accesses, want)
			}
			if shellText(c) != tt.judged || !strings.Contains(string(c.ToolInput), `"timeout":5`) {
				t.Errorf("tool input %s; want the command %q and the other fields kept", c.ToolInput, tt.judged)
			}
		})
	}
}
