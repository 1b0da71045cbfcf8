package wire

// Policy is a session's effective permissions at one moment (GET
// /v1/policy): what the daemon's Launcher turns into the mount view and
// the kernel rules of its commands.
type Policy struct {
	Session      string   `json:"session"`
	Cwd          string   `json:"cwd"`
	Workspace    []string `json:"workspace"`
	ReadOnly     []string `json:"read_only"`
	BlockedWrite []string `json:"blocked_write"`
	Protected    []string `json:"protected"`
	Grants       []Scope  `json:"grants"`
	// Used are the grants the hook's check used for the command an exec
	// capability was issued for (a once grant is spent by then); the
	// daemon sets them for its Launcher, GET /v1/policy never does.
	Used []Scope `json:"used,omitempty"`
	// The device policy file's part of a confined command's view:
	// absolute paths. Confinement is nil from a daemon that does not send
	// them.
	Toolchains    []string `json:"toolchains,omitempty"`
	Caches        []string `json:"caches,omitempty"`
	ReadOnlyFiles []string `json:"read_only_files,omitempty"`
	SSHAgent      bool     `json:"ssh_agent,omitempty"`
	Confinement   *bool    `json:"confinement,omitempty"`
}
