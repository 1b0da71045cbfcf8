package ipc

import (
	"time"

	"pathgrant/guard"
)

// Session kinds. Only interactive sessions wait on a prompt.
const (
	KindInteractive = "interactive"
	KindBackground  = "background"
	KindScheduled   = "scheduled"
)

// SessionRequest registers a session (POST /v1/sessions).
type SessionRequest struct {
	Agent        string            `json:"agent"`
	Workflow     string            `json:"workflow,omitempty"`
	Kind         string            `json:"kind,omitempty"`
	Cwd          string            `json:"cwd"`
	Workspace    []string          `json:"workspace"`
	ReadOnly     []string          `json:"read_only,omitempty"`
	BlockedWrite []string          `json:"blocked_write,omitempty"`
	Env          map[string]string `json:"env,omitempty"`
	Parent       string            `json:"parent,omitempty"`
	// EndWithLauncher ends the session when the process that registers it
	// exits (`pathgrant run` sets it), even if that process is killed.
	EndWithLauncher bool `json:"end_with_launcher,omitempty"`
}

// SessionResponse is the answer to a registration. The token is shown once:
// the daemon keeps only its hash.
type SessionResponse struct {
	ID      string    `json:"id"`
	Token   string    `json:"token"`
	Kind    string    `json:"kind"`
	Expires time.Time `json:"expires"`
}

// CheckRequest asks whether a path operation or a shell command is allowed
// (POST /v1/check, POST /s/{session}/v1/check). Exactly one of Op+Path and
// Command is set. SessionID names the pathgrant session; EnvSession is
// PATHGRANT_SESSION from the hook's environment; ClientSession is the agent
// client's own session field (Claude's session_id, Cursor's
// conversation_id), bound to one pathgrant session on first sight.
type CheckRequest struct {
	SessionID      string   `json:"session_id,omitempty"`
	ClientSession  string   `json:"client_session,omitempty"`
	EnvSession     string   `json:"env_session,omitempty"`
	Agent          string   `json:"agent,omitempty"`
	Workflow       string   `json:"workflow,omitempty"`
	Execution      string   `json:"execution,omitempty"`
	Tool           string   `json:"tool,omitempty"`
	RequestID      string   `json:"request_id,omitempty"`
	Op             guard.Op `json:"op,omitempty"`
	Path           string   `json:"path,omitempty"`
	Command        string   `json:"command,omitempty"`
	Cwd            string   `json:"cwd,omitempty"`
	WorkspaceRoots []string `json:"workspace_roots,omitempty"`
	WaitMS         int      `json:"wait_ms,omitempty"`
	// ExecCommand is the shell text the caller will run under `pathgrant
	// exec` if the command is allowed: it asks for an exec capability
	// bound to that text (see ExecInfo).
	ExecCommand string `json:"exec_command,omitempty"`
	// ExecAnyway asks for the capability whatever the guard answers:
	// `pathgrant exec --session` runs its command through the daemon's
	// one door even when the guard cannot prove it safe, since the kernel
	// confines it either way (the answer still raises the approval
	// request a denial may). Not on a machine that cannot confine.
	ExecAnyway bool `json:"exec_anyway,omitempty"`
}

// Answer is the daemon's decision on a check, and the payload of the event
// it publishes: one type, so what the agent is told and what the UI shows
// cannot drift apart. It carries no file contents, command output,
// environment values or tokens.
type Answer struct {
	Decision  guard.Verdict `json:"decision"`
	Session   string        `json:"session"`
	Workflow  string        `json:"workflow,omitempty"`
	Execution string        `json:"execution,omitempty"`
	Tool      string        `json:"tool,omitempty"`
	RequestID string        `json:"request_id,omitempty"`
	Op        guard.Op      `json:"op,omitempty"`
	Path      string        `json:"path,omitempty"`
	Reason    string        `json:"reason"`
	Rule      guard.Rule    `json:"rule,omitempty"`
	Eligible  bool          `json:"eligible"`
	Suggested *guard.Scope  `json:"suggested_scope"`
	Pending   string        `json:"pending,omitempty"`
	Grants    []string      `json:"grants,omitempty"`
	// Exec is set for shell commands: whether and how they are confined.
	Exec *ExecInfo `json:"exec,omitempty"`
}

// Decision is the body of POST /v1/requests/{id}/decision. Code is the
// request's one-time approval code: an approval over the socket needs it,
// a denial does not, and the app's own windows (in process) never do.
type Decision struct {
	Scope string          `json:"scope"` // once | session | device | deny
	Kind  guard.GrantKind `json:"kind,omitempty"`
	Code  string          `json:"code,omitempty"`
}

// Event is one server-sent event on GET /v1/events.
type Event struct {
	Type    string    `json:"type"`
	Time    time.Time `json:"time"`
	Session string    `json:"session"`
	Answer  *Answer   `json:"answer,omitempty"`
	Request *Request  `json:"request,omitempty"`
	GrantID string    `json:"grant,omitempty"`
}

// The event types.
const (
	EventRequestCreated = "request.created"
	EventRequestDecided = "request.decided"
	EventGrantUsed      = "grant.used"
	EventGrantRevoked   = "grant.revoked"
)

// RevokedSession is the answer to DELETE /v1/sessions/{id}/grants: the
// session and the ids of the grants that were live and are now revoked.
type RevokedSession struct {
	Session string   `json:"session"`
	Revoked []string `json:"revoked"`
}

// Error is every non-2xx body.
type Error struct {
	Error string `json:"error"`
	Kind  string `json:"kind,omitempty"`
}

// Policy is a session's effective permissions at one moment (GET
// /v1/policy): what `pathgrant exec`, and for a hook's rewritten command
// the daemon's Launcher, turn into the mount view and the kernel rules.
type Policy struct {
	Session      string        `json:"session"`
	Cwd          string        `json:"cwd"`
	Workspace    []string      `json:"workspace"`
	ReadOnly     []string      `json:"read_only"`
	BlockedWrite []string      `json:"blocked_write"`
	Protected    []string      `json:"protected"`
	Grants       []guard.Scope `json:"grants"`
	// Used are the grants the hook's check used for the command an exec
	// capability was issued for (a once grant is spent by then); the
	// daemon sets them for its Launcher, GET /v1/policy never does.
	Used []guard.Scope `json:"used,omitempty"`
	// The device policy file's part of a confined command's view:
	// absolute paths. Confinement is nil from a daemon that does not send
	// them.
	Toolchains    []string `json:"toolchains,omitempty"`
	Caches        []string `json:"caches,omitempty"`
	ReadOnlyFiles []string `json:"read_only_files,omitempty"`
	SSHAgent      bool     `json:"ssh_agent,omitempty"`
	Confinement   *bool    `json:"confinement,omitempty"`
}

// RequestContext is where an approval request comes from and why the guard
// denied it, so the person deciding sees what the agent was working on: the
// session's cwd and workspace roots, and the denial's reason. Request
// embeds it; the fields are flat in its JSON.
type RequestContext struct {
	Cwd       string   `json:"cwd,omitempty"`
	Workspace []string `json:"workspace,omitempty"`
	Reason    string   `json:"reason,omitempty"`
}
