package wire

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
	Op             Op       `json:"op,omitempty"`
	Path           string   `json:"path,omitempty"`
	Command        string   `json:"command,omitempty"`
	Cwd            string   `json:"cwd,omitempty"`
	WorkspaceRoots []string `json:"workspace_roots,omitempty"`
	WaitMS         int      `json:"wait_ms,omitempty"`
	// Input is the tool's own input, for the person's eyes in a prompt
	// (a search's pattern and folder): shown, never checked; cut to
	// MaxInput bytes.
	Input string `json:"input,omitempty"`
	// Purpose is what the agent said the call is for, where its client
	// sends one (Claude Code's Bash "description"): shown to the person,
	// never checked; cut to MaxInput bytes.
	Purpose string `json:"purpose,omitempty"`
	// ToolTimeoutMS is the tool's own timeout where the client has one
	// (Claude Code's Bash "timeout", its default when absent; Codex's
	// "timeout_ms"): the client kills the command then, so a request
	// raised while it runs waits no longer than that (one clock, the
	// agent's). 0: the client has none.
	ToolTimeoutMS int `json:"tool_timeout_ms,omitempty"`
	// Unmapped reports a tool the hook cannot map to accesses, which it
	// refuses: the daemon denies and records it (Tool names it; no op,
	// path or command).
	Unmapped bool `json:"unmapped,omitempty"`
	// OtherMCP reports another MCP server's tool (not pathgrant's
	// bridge), whose file accesses the hook cannot know: the daemon
	// answers it from the device policy in force (unknown_tools), so the
	// hook need not read the policy file itself. Tool names it and
	// MCPServer its server when the client says which; no op, path or
	// command.
	OtherMCP  bool   `json:"other_mcp,omitempty"`
	MCPServer string `json:"mcp_server,omitempty"`
	// ExecCommand is the shell text the caller will run under `pathgrant
	// exec` if the command is allowed: it asks for an exec capability
	// bound to that text (see ExecInfo).
	ExecCommand string `json:"exec_command,omitempty"`
	// ExecAnyway asks for the capability whatever the guard answers:
	// `pathgrant exec --session` runs its command through the daemon's
	// one door even when the guard cannot prove it safe, since the kernel
	// confines it either way (the answer still raises the approval
	// request a denial may). A hook never sets it. Not on a machine that
	// cannot confine.
	ExecAnyway bool `json:"exec_anyway,omitempty"`
	// Held is the program of a confined command paused in the open of
	// Path (the hold route's check, never a caller's): the request says so.
	Held string `json:"-"`
	// HeldBy is what holds it (HoldRequest.By).
	HeldBy string `json:"-"`
}

// MaxInput bounds CheckRequest.Input.
const MaxInput = 512

// Answer is the daemon's decision on a check, and the payload of the event
// it publishes: one type, so what the agent is told and what the UI shows
// cannot drift apart. It carries no file contents, command output,
// environment values or tokens.
type Answer struct {
	Decision  Verdict  `json:"decision"`
	Session   string   `json:"session"`
	Workflow  string   `json:"workflow,omitempty"`
	Execution string   `json:"execution,omitempty"`
	Tool      string   `json:"tool,omitempty"`
	RequestID string   `json:"request_id,omitempty"`
	Op        Op       `json:"op,omitempty"`
	Path      string   `json:"path,omitempty"`
	Reason    string   `json:"reason"`
	Rule      Rule     `json:"rule,omitempty"`
	Eligible  bool     `json:"eligible"`
	Suggested *Scope   `json:"suggested_scope"`
	Pending   string   `json:"pending,omitempty"`
	Grants    []string `json:"grants,omitempty"`
	// Exec is set for shell commands: whether and how they are confined.
	Exec *ExecInfo `json:"exec,omitempty"`
	// LeftToClient answers an Unmapped or OtherMCP check the device
	// policy leaves to the client's own permission flow (unmapped_tools
	// or unknown_tools = "ask-client"): the hook makes no decision. The
	// decision is still Deny, so a caller that does not know the field
	// refuses.
	LeftToClient bool `json:"left_to_client,omitempty"`
}

// Allowed reports whether the daemon allowed the check.
func (a Answer) Allowed() bool { return a.Decision == Allow }

// ExecInfo is what a check answer for a shell command says about how the
// command is to run. Confine: run it confined under `pathgrant exec` (the
// machine can confine and the device policy does not turn it off); Level
// is the machine's confinement or LevelOff. Capability is set only in the
// HTTP answer to the caller that asked for it (CheckRequest.ExecCommand)
// for an allowed command (any command with ExecAnyway): never in events,
// the audit log or the UI.
type ExecInfo struct {
	Confine    bool   `json:"confine"`
	Level      Level  `json:"level"`
	Capability string `json:"capability,omitempty"`
}
