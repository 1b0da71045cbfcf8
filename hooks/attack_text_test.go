package hooks

import "testing"

// What someone with the agent's keyboard tried (each TestAttackText* is one
// attempt, and passes while it fails).

// TestAttackTextWorktreeIsolationHiddenByDuplicateKey: makesWorktree reads
// the sub-agent's isolation with encoding/json, which matches keys
// case-insensitively and keeps the last match; Claude Code (JavaScript)
// reads "isolation" exactly. An input carrying "isolation": "worktree"
// and then "Isolation": null reads to the hook as no isolation (NoFiles,
// left to the client) while Claude would create the worktree, if the
// client passes the extra key through its schema. The hook should decode
// the exact key (and treat any other spelling of it, or a duplicate, as
// not a no-file call).
func TestAttackTextWorktreeIsolationHiddenByDuplicateKey(t *testing.T) {
	for _, input := range []string{
		`{"prompt":"p","isolation":"worktree","Isolation":null}`,
		`{"prompt":"p","isolation":"worktree","ISOLATION":"remote"}`,
	} {
		raw := `{"session_id":"s","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"Agent","tool_input":` + input + `}`
		c, err := claudeAdapter{}.parse([]byte(raw))
		if err == nil && c.NoFiles {
			t.Errorf("Agent with %s is a no-file call: the worktree Claude makes is not checked", input)
		}
	}
}
