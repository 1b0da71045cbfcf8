package hooks

import (
	"encoding/json"
)

// appdirs.ExecEnv turns on kernel enforcement of shell commands: with
// PATHGRANT_EXEC=1 in the hook's environment, an allowed shell command is
// rewritten, where the client supports input rewriting (Claude Code's
// updatedInput, Gemini CLI's hookSpecificOutput.tool_input), to run under
// `pathgrant exec`, so approved read-only access is enforced by Landlock as
// well as checked by the guard.

// ExecWrap returns shell text that runs command under `pathgrant exec`
// in bash: `pathgrant exec -- bash -c '<command>'`, single-quoted so that
// the shell passes command through unchanged.
func ExecWrap(command string) string {
	return "pathgrant exec -- bash -c " + shellQuote(command)
}

// rewriteShell returns the client's tool input with its command wrapped by
// ExecWrap, or nil when the call is not a shell command or the input has
// no string "command" field (then nothing is rewritten).
func rewriteShell(call Call) json.RawMessage {
	if !call.Shell || len(call.ToolInput) == 0 {
		return nil
	}
	var in map[string]any
	if json.Unmarshal(call.ToolInput, &in) != nil {
		return nil
	}
	cmd, ok := in["command"].(string)
	if !ok || cmd == "" {
		return nil
	}
	in["command"] = ExecWrap(cmd)
	out, err := json.Marshal(in)
	if err != nil {
		return nil
	}
	return out
}
