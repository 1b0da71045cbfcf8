package hooks

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"pathgrant/appdirs"
	"pathgrant/wire"
)

// Each client's own session-end event. install-hooks registers the hook
// for it, and the hook then ends the client's pathgrant session at once,
// rather than when the daemon sees the agent process exit:
//
//   - Claude Code and Codex: SessionEnd (session_id, reason);
//   - Gemini CLI: SessionEnd (session_id, reason; the CLI does not wait);
//   - Cursor: sessionEnd (conversation_id, the id its checks carry). Not
//     stop, which ends one agent loop of a conversation that goes on;
//   - Pi: the extension's session_shutdown (session_id, reason), except a
//     reload, after which the same session goes on;
//   - Factory Droid: SessionEnd (session_id, reason);
//   - Qwen Code: SessionEnd (session_id, reason), sent by its interactive
//     interface only (a headless run's session ends with its process);
//   - GitHub Copilot CLI: sessionEnd (sessionId, reason). Its payloads
//     name no event: a payload with a reason and no toolName is the end.
//
// The daemon ends only the session bound to the hook's own agent process
// (DELETE /v1/sessions/{id}, resolved like every session route): a payload
// naming another agent's session is refused and audited. Whatever the
// daemon says, the hook answers the client with its "no decision" output
// and exit status 0, within endTimeout.
var endEvents = map[string]string{
	"claude":  "SessionEnd",
	"codex":   "SessionEnd",
	"gemini":  "SessionEnd",
	"cursor":  "sessionEnd",
	"pi":      "session_shutdown",
	"copilot": "sessionEnd",
	"qwen":    "SessionEnd",
	"droid":   "SessionEnd",
}

// endTimeout bounds the whole end-session exchange: a client waits for its
// session-end hooks on the way out.
const endTimeout = 2 * time.Second

// endCall is a session-end event, as far as pathgrant reads it.
type endCall struct {
	Client, Event, ClientSession, Reason string
}

// parseEnd reports whether raw is the client's session-end event, and
// reads the session it ends.
func parseEnd(client string, raw []byte) (endCall, bool) {
	var in struct {
		Event          string  `json:"hook_event_name"`
		SessionID      string  `json:"session_id"`
		ConversationID string  `json:"conversation_id"`
		Reason         string  `json:"reason"`
		CopilotSession string  `json:"sessionId"`
		CopilotTool    *string `json:"toolName"`
	}
	want := endEvents[client]
	if want == "" || json.Unmarshal(raw, &in) != nil {
		return endCall{}, false
	}
	e := endCall{Client: client, Event: in.Event, ClientSession: in.SessionID, Reason: in.Reason}
	switch client {
	case "cursor":
		e.ClientSession = in.ConversationID // the id Cursor's checks carry
	case "copilot":
		if in.CopilotTool != nil || in.Reason == "" || in.Event != "" {
			return endCall{}, false
		}
		e.Event, e.ClientSession = want, in.CopilotSession
	}
	return e, e.Event == want
}

// endOutput is the client's "no decision" answer to a session-end event.
func endOutput(client string) Output {
	switch client {
	case "codex":
		return Output{}
	case "pi":
		return jsonOutput(piOutput{Block: false})
	}
	return jsonOutput(struct{}{})
}

// runEnd asks the daemon to end the client's session, and answers the
// client with no decision whatever happens. A session named by
// PATHGRANT_SESSION belongs to its launcher (`pathgrant run`), which ends
// it: the client's end event leaves it alone.
func runEnd(ctx context.Context, e endCall, getenv func(string) string, socket string) Result {
	// A session-end event touches no files: the client gets no decision,
	// as for a tool that touches none.
	call := Call{Client: e.Client, Event: e.Event, ClientSession: e.ClientSession, NoFiles: true}
	res := Result{Output: endOutput(e.Client), Call: call, Verdict: Verdict{Allow: true}}
	switch {
	case e.Client == "pi" && e.Reason == "reload":
		res.Verdict.Reason = "pathgrant: the session goes on after a reload"
	case getenv(appdirs.SessionEnv) != "":
		res.Verdict.Reason = "pathgrant: the session belongs to its launcher, which ends it"
	case !plainID(e.ClientSession):
		res.Verdict.Reason = "pathgrant: no session to end"
	default:
		ctx, cancel := context.WithTimeout(ctx, endTimeout)
		defer cancel()
		res.Err = EndSession(ctx, socket, e.ClientSession)
		res.Verdict.Reason = "pathgrant: session ended"
		if res.Err != nil {
			res.Verdict.Reason = "pathgrant: session not ended: " + res.Err.Error()
		}
	}
	return res
}

// plainID reports whether id can be put in a URL path as it is: client
// session ids are UUIDs and the like; anything else is not sent.
func plainID(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	return strings.Trim(id, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.:") == ""
}

// EndSession asks the daemon at socket to end session id (DELETE
// /v1/sessions/{id}), as the agent process the hook runs under. Only a
// session bound to that process ends; the daemon refuses any other.
func EndSession(ctx context.Context, socket, id string) error {
	c := wire.Client{Socket: socket}
	return c.Do(ctx, "DELETE", wire.PathSessions+"/"+id, nil, nil)
}
