package wire

import "time"

// Request is an approval request: an eligible denial waiting for the
// person. Identical denials (same session, workflow, op and canonical
// path) are one request with a repeat count.
type Request struct {
	ID          string    `json:"id"`
	Session     string    `json:"session"`
	SessionKind string    `json:"session_kind"`
	Workflow    string    `json:"workflow,omitempty"`
	Agent       string    `json:"agent,omitempty"`
	Tool        string    `json:"tool,omitempty"`
	Command     string    `json:"command,omitempty"`
	Op          Op        `json:"op"`
	Path        string    `json:"path"`
	Requested   string    `json:"requested,omitempty"`
	Suggested   Scope     `json:"suggested_scope"`
	Count       int       `json:"count"`
	Created     time.Time `json:"created"`
	Expires     time.Time `json:"expires"`
	State       string    `json:"state"` // pending | approved | denied | expired | ended
	Scope       string    `json:"scope,omitempty"`
	Grant       string    `json:"grant,omitempty"`
	RequestID   string    `json:"request_id,omitempty"`
	RequestContext
}

// Request states. A request whose session ended before anyone decided it
// is StateEnded: a waiting check is answered deny.
const (
	StatePending  = "pending"
	StateApproved = "approved"
	StateDenied   = "denied"
	StateExpired  = "expired"
	StateEnded    = "ended"
)

// RequestContext is where an approval request comes from and why the guard
// denied it, so the person deciding sees what the agent was working on: the
// session's cwd and workspace roots, and the denial's reason. Request
// embeds it; the fields are flat in its JSON.
type RequestContext struct {
	Cwd       string   `json:"cwd,omitempty"`
	Workspace []string `json:"workspace,omitempty"`
	Reason    string   `json:"reason,omitempty"`
}

// RequestPage is one page of the pending approval requests, oldest first.
// Next, when not empty, is the cursor of the following page (?after=).
type RequestPage struct {
	Requests []Request `json:"requests"`
	Next     string    `json:"next,omitempty"`
}

// Decision is the body of POST /v1/requests/{id}/decision. Code is the
// request's one-time approval code: an approval over the socket needs it,
// a denial does not, and the app's own windows (in process) never do.
type Decision struct {
	Scope string    `json:"scope"` // once | session | device | deny
	Kind  GrantKind `json:"kind,omitempty"`
	Code  string    `json:"code,omitempty"`
}
