package wire

import "time"

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

// SessionInfo is one session as the person sees it (GET /v1/sessions):
// what labels it (agent, project folder, start) and whether it ended. It
// never carries the token or the session's environment.
type SessionInfo struct {
	ID        string    `json:"id"`
	Agent     string    `json:"agent,omitempty"`
	Workflow  string    `json:"workflow,omitempty"`
	Kind      string    `json:"kind"`
	Cwd       string    `json:"cwd,omitempty"`
	Workspace []string  `json:"workspace,omitempty"`
	Started   time.Time `json:"started"`
	Ended     time.Time `json:"ended,omitzero"`
}

// RevokedSession is the answer to DELETE /v1/sessions/{id}/grants: the
// session and the ids of the grants that were live and are now revoked.
type RevokedSession struct {
	Session string   `json:"session"`
	Revoked []string `json:"revoked"`
}

// Health is the answer of GET /v1/health: the daemon is up, how many
// requests wait, whether prompts are paused, and the confinement agent
// shell commands get, so every surface can say "unconfined" when it is.
type Health struct {
	OK          bool  `json:"ok"`
	Pending     int   `json:"pending"`
	Paused      bool  `json:"paused"`
	Confinement Level `json:"confinement"`
	// FailedChecks counts the checks after confined commands that did not
	// finish: each holds its session's next command (a count only: the
	// route is open to any caller of the user).
	FailedChecks int `json:"failed_checks,omitempty"`
}
