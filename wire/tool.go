package wire

import "encoding/json"

// ToolRequest is the body of POST /v1/tools/{tool} and POST
// /s/{session}/v1/tools/{tool}: one call of a tool pathgrant runs itself.
// The session comes from the route's declared sources (the URL, the
// X-Session-ID header, session_id, env_session); AgentProcess asks for
// the session bound to the caller's agent process instead (the MCP
// bridge of a hook-only client, which never learns the client's own
// session id). WaitMS is how long an interactive session's call may wait
// for the user on an eligible denial.
type ToolRequest struct {
	SessionID    string          `json:"session_id,omitempty"`
	EnvSession   string          `json:"env_session,omitempty"`
	AgentProcess bool            `json:"agent_process,omitempty"`
	RequestID    string          `json:"request_id,omitempty"`
	WaitMS       int             `json:"wait_ms,omitempty"`
	Args         json.RawMessage `json:"args"`
}
