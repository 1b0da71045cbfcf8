package wire

import (
	"strings"
	"time"
)

// Request is an approval request: an eligible denial waiting for the
// person. Identical denials (same session, workflow, op and canonical
// path) are one request with a repeat count.
type Request struct {
	ID          string `json:"id"`
	Session     string `json:"session"`
	SessionKind string `json:"session_kind"`
	Workflow    string `json:"workflow,omitempty"`
	Agent       string `json:"agent,omitempty"`
	Tool        string `json:"tool,omitempty"`
	Command     string `json:"command,omitempty"`
	Op          Op     `json:"op"`
	Path        string `json:"path"`
	Requested   string `json:"requested,omitempty"`
	Suggested   Scope  `json:"suggested_scope"`
	Count       int    `json:"count"`
	// Waiting is how many calls wait for the decision now; WaitUntil is
	// when the last of them stops waiting (while Waiting > 0) or stopped
	// (Waiting == 0): one clock, the agent's, for the window to show. A
	// decision answers every call waiting at that moment.
	Waiting   int       `json:"waiting"`
	WaitUntil time.Time `json:"wait_until,omitzero"`
	// Input is the tool's own input as the agent gave it (a search's
	// pattern and folder), for the person to read: shown, never checked.
	// Command is the shell text the agent wrote, without the prefix a
	// hook adds to run it in the client's directory.
	Input string `json:"input,omitempty"`
	// Purpose is the agent's own stated purpose of the call
	// (CheckRequest.Purpose): shown, never checked.
	Purpose string `json:"purpose,omitempty"`
	// Ended, on a request that ended undecided (StateEnded), says in
	// words why nothing waits for it any more ("the command ended: Claude
	// Code's Bash tool stopped it after 2 minutes"), for the window to
	// say in place of the choices.
	Ended string `json:"ended,omitempty"`
	// Asked, when set, says the person raised this request themselves
	// (AskedAudit: "Allow…" on an audit row; AskedSettings: a grant made
	// in settings), never an agent: it may then be of a path outside the
	// eligible roots, though never of a never-allowed one. Session is
	// empty when it is for this device only (the audit row's session
	// ended, or settings named none): only device choices are offered.
	Asked string `json:"asked,omitempty"`
	// Held, when set, is the program of a confined command that is paused
	// in the open of this file, waiting for the decision: allowing hands
	// it the file, and it goes on; nothing is retried.
	Held string `json:"held,omitempty"`
	// HeldBy is what holds the command's open (HoldRequest.By).
	HeldBy string `json:"held_by,omitempty"`
	// SessionStarted labels the session, with its agent and cwd.
	SessionStarted time.Time `json:"session_started,omitzero"`
	// SessionExpires is when the session ends at the latest whatever its
	// agent does (the daemon's age cap on a session bound to no process,
	// 24 h by default), for "until the session ends" to say so; zero when
	// it ends only when its agent or launcher exits.
	SessionExpires time.Time `json:"session_expires,omitzero"`
	Created        time.Time `json:"created"`
	Expires        time.Time `json:"expires"`
	State          string    `json:"state"` // pending | approved | denied | expired | ended
	Scope          string    `json:"scope,omitempty"`
	Grant          string    `json:"grant,omitempty"`
	RequestID      string    `json:"request_id,omitempty"`
	RequestContext
}

// Where a request the person raised themselves comes from (Request.Asked).
const (
	AskedAudit    = "audit"
	AskedSettings = "settings"
)

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
// For limits a session or device grant in time (a Go duration: "15m",
// "1h", "8h"); empty is until the session ends, or always. Remember,
// with Scope deny, denies the same access from the session at once for
// the rest of it (a remembered denial, see Denial).
type Decision struct {
	Scope    string    `json:"scope"` // once | session | device | deny
	Kind     GrantKind `json:"kind,omitempty"`
	Code     string    `json:"code,omitempty"`
	For      string    `json:"for,omitempty"`
	Remember bool      `json:"remember,omitempty"`
	// Device, with Scope deny and Remember, makes the denial durable:
	// every session on this device is denied the same access, across
	// restarts, until the person lifts it.
	Device bool `json:"device,omitempty"`
	// Path, when set, is the scope the person edited before allowing: the
	// request's path or a folder above it, never above the eligible root
	// it lies in (the engine refuses a wider one). Empty: the request's
	// own path (Kind says file or its folder).
	Path string `json:"path,omitempty"`
}

// FormatFor spells a grant's duration as a person writes it and as
// Decision.For takes it back: "15m", "1h", "8h", "1h30m", "2s".
func FormatFor(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = s[:len(s)-2]
	}
	if strings.HasSuffix(s, "h0m") {
		s = s[:len(s)-2]
	}
	return s
}

// Denial is a remembered denial: the person chose "Deny for this
// session", so the same op on the same path from that session is denied at
// once, without a new prompt, until the session ends or the person lifts
// it (GET and DELETE /v1/denials).
type Denial struct {
	ID      string `json:"id"`
	Session string `json:"session"`
	Agent   string `json:"agent,omitempty"`
	Cwd     string `json:"cwd,omitempty"`
	// SessionStarted labels the session, with its agent and cwd.
	SessionStarted time.Time `json:"session_started,omitzero"`
	// SessionExpires is when the session ends at the latest whatever its
	// agent does (the daemon's age cap on a session bound to no process,
	// 24 h by default), for "until the session ends" to say so; zero when
	// it ends only when its agent or launcher exits.
	SessionExpires time.Time `json:"session_expires,omitzero"`
	Op             Op        `json:"op"`
	Path           string    `json:"path"`
	Request        string    `json:"request"` // the approval request it was decided on
	Created        time.Time `json:"created"`
	Hits           int       `json:"hits"` // calls it has denied since
	LastHit        time.Time `json:"last_hit,omitzero"`
	// Device marks a durable denial ("Deny on this device"): it holds for
	// every session, survives restarts and lasts until lifted; Session
	// then names the session it was decided in.
	Device bool `json:"device,omitempty"`
}

// Raise is the body of POST /v1/app/raise: another process (`pathgrant
// settings`, a second launch of the app) asks the running app to show its
// own window. View is "inbox" (the pending requests) or "settings".
type Raise struct {
	View string `json:"view"`
}

// The views Raise may name.
const (
	ViewInbox    = "inbox"
	ViewSettings = "settings"
)
