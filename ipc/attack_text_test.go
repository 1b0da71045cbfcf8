package ipc

// What someone with the agent's keyboard tried against what a request
// shows (each TestAttackText* is one attempt, and passes while it fails).

import (
	"context"
	"strings"
	"testing"
	"unicode"

	"pathgrant/guard"
	"pathgrant/wire"
)

// TestAttackTextRequestCarriesAgentControlledControlText: what the inbox
// and `pathgrant pending` show comes from the agent: the session's agent
// name (any caller that registers a session: `pathgrant run --agent`, a
// check's agent), and the path of a read under an eligible root, which
// need not exist. The daemon accepts both with newlines and terminal
// escapes, unbounded, and hands them to every approver as they are
// (only the tool input is cleaned).
func TestAttackTextRequestCarriesAgentControlledControlText(t *testing.T) {
	e := newTestEnv(t)
	agent := "claude wants to read ~/Downloads/readme.txt" + strings.Repeat("\n", 200) + strings.Repeat("x", 10_000)
	c := e.clientFor(e.register(wire.SessionRequest{Agent: agent}))
	path := e.dl + "/x\r\x1b[1A\x1b[2Kharmless\u202Etxt.a\x1b]52;c;Zm9v\a"
	ans, err := c.Check(context.Background(), wire.CheckRequest{Op: guard.OpRead, Path: path})
	if err != nil || ans.Pending == "" {
		t.Fatalf("no request: %+v %v", ans, err)
	}
	var got wire.Request
	for _, r := range e.srv.Engine().Pending() {
		if r.ID == ans.Pending {
			got = r
		}
	}
	bad := func(s string) bool {
		return strings.IndexFunc(s, func(c rune) bool { return unicode.IsControl(c) || unicode.Is(unicode.Cf, c) }) >= 0
	}
	if bad(got.Agent) || len(got.Agent) > 256 {
		t.Errorf("the request's agent name is the caller's, raw: %d bytes, %d newlines", len(got.Agent), strings.Count(got.Agent, "\n"))
	}
	// The path stays exact (it is what a grant names); every front end
	// shows it through wire.Printable (the cli and prompt attack tests).
	if shown := wire.Printable(got.Path); bad(shown) {
		t.Errorf("the path as shown carries control and format characters: %q", shown)
	}
}
