package hooks

// The daemon's JSON API, as far as a hook uses it. These mirror
// ipc.CheckRequest and ipc.Answer field for field (the daemon refuses
// unknown fields); TestWireMatchesIPC keeps them in step.

// Header names the daemon reads.
const (
	headerSession = "X-Session-ID"
	headerToken   = "X-Session-Token"
)

// CheckRequest is the body of POST /v1/check.
type CheckRequest struct {
	SessionID      string   `json:"session_id,omitempty"`
	ClientSession  string   `json:"client_session,omitempty"`
	EnvSession     string   `json:"env_session,omitempty"`
	Agent          string   `json:"agent,omitempty"`
	Workflow       string   `json:"workflow,omitempty"`
	Execution      string   `json:"execution,omitempty"`
	Tool           string   `json:"tool,omitempty"`
	RequestID      string   `json:"request_id,omitempty"`
	Op             string   `json:"op,omitempty"`
	Path           string   `json:"path,omitempty"`
	Command        string   `json:"command,omitempty"`
	Cwd            string   `json:"cwd,omitempty"`
	WorkspaceRoots []string `json:"workspace_roots,omitempty"`
	WaitMS         int      `json:"wait_ms,omitempty"`
	ExecCommand    string   `json:"exec_command,omitempty"`
	// ExecAnyway mirrors the daemon's field; a hook never sets it (only
	// `pathgrant exec --session` asks for a capability whatever the
	// guard says).
	ExecAnyway bool `json:"exec_anyway,omitempty"`
}

// Answer is the daemon's decision on one check.
type Answer struct {
	Decision  string    `json:"decision"`
	Session   string    `json:"session"`
	Workflow  string    `json:"workflow,omitempty"`
	Execution string    `json:"execution,omitempty"`
	Tool      string    `json:"tool,omitempty"`
	RequestID string    `json:"request_id,omitempty"`
	Op        string    `json:"op,omitempty"`
	Path      string    `json:"path,omitempty"`
	Reason    string    `json:"reason"`
	Rule      string    `json:"rule,omitempty"`
	Eligible  bool      `json:"eligible"`
	Pending   string    `json:"pending,omitempty"`
	Grants    []string  `json:"grants,omitempty"`
	Exec      *ExecInfo `json:"exec,omitempty"`
}

// ExecInfo is how the daemon says an allowed shell command is to run:
// confined under `pathgrant exec` presenting Capability, or (Confine
// false) unconfined, Level saying why.
type ExecInfo struct {
	Confine    bool   `json:"confine"`
	Level      string `json:"level"`
	Capability string `json:"capability,omitempty"`
}

// Allowed reports whether the daemon allowed the check.
func (a Answer) Allowed() bool { return a.Decision == "allow" }

// errorBody is every non-2xx body.
type errorBody struct {
	Error string `json:"error"`
	Kind  string `json:"kind,omitempty"`
}
