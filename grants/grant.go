package grants

import (
	"fmt"
	"time"

	"pathgrant/guard"
)

// Scope says how long a grant lives. It is chosen by the user in the prompt.
type Scope string

// The scopes. Only read may be granted at device scope.
const (
	// ScopeOnce serves one use, within OnceTTL, in its session.
	ScopeOnce Scope = "once"
	// ScopeSession serves its session until the session ends or reaches
	// its max age.
	ScopeSession Scope = "session"
	// ScopeDevice serves every session on this device until revoked.
	ScopeDevice Scope = "device"
)

// ParseScope returns the Scope named s, or an error naming the valid ones.
func ParseScope(s string) (Scope, error) {
	switch sc := Scope(s); sc {
	case ScopeOnce, ScopeSession, ScopeDevice:
		return sc, nil
	}
	return "", fmt.Errorf("%w: unknown scope %q (want once, session or device)", ErrInvalid, s)
}

// End says why a grant stopped serving. It is empty while the grant lives.
type End string

// The ways a grant ends. Each is recorded once, with an audit record.
const (
	EndRevoked      End = "revoked"
	EndExpired      End = "expired"
	EndConsumed     End = "consumed"
	EndInvalidated  End = "invalidated"
	EndSessionEnded End = "session-ended"
)

// Identity is a file's device and inode. Comparing it at use time with the
// value seen at approval tells a replaced path from the approved one.
type Identity struct {
	Dev uint64 `json:"dev"`
	Ino uint64 `json:"ino"`
}

// Grant is one approved access as the store keeps it, including its
// lifecycle, so that the settings window and the CLI can show why a grant
// does or does not serve.
type Grant struct {
	ID       string          `json:"id"`
	Scope    Scope           `json:"scope"`
	Op       guard.Op        `json:"op"`
	Path     string          `json:"path"`
	Kind     guard.GrantKind `json:"kind"`
	Identity Identity        `json:"identity"`
	Session  string          `json:"session,omitempty"`
	Workflow string          `json:"workflow,omitempty"`
	Agent    string          `json:"agent,omitempty"`
	// Device is the binding of the device a device grant was approved on.
	Device    string    `json:"device,omitempty"`
	Created   time.Time `json:"created"`
	Expires   time.Time `json:"expires,omitzero"`
	LastUsed  time.Time `json:"last_used,omitzero"`
	UseCount  uint64    `json:"use_count"`
	RevokedAt time.Time `json:"revoked_at,omitzero"`
	Ended     End       `json:"ended,omitempty"`
	// EndReason says why the session a session-ended grant served ended
	// (EndReasonAgentExited, EndReasonSessionEnd, …); empty otherwise.
	EndReason EndReason `json:"end_reason,omitempty"`
}

// Guard returns the part of g the guard's policy reasons about.
func (g Grant) Guard() guard.Grant {
	return guard.Grant{ID: g.ID, Op: g.Op, Path: g.Path, Kind: g.Kind}
}

// Live reports whether g has not ended and not expired at now. It does not
// check the session, the device or the path's identity; a View does.
func (g Grant) Live(now time.Time) bool {
	return g.Ended == "" && !g.expired(now)
}

func (g Grant) expired(now time.Time) bool {
	return !g.Expires.IsZero() && !now.Before(g.Expires)
}

// State names g's state at now: "live", "expired" (even before the sweeper
// records it), or how it ended: a grant whose session ended for a known
// reason reads "ended (agent exited)", "ended (session end)", ….
func (g Grant) State(now time.Time) string {
	switch {
	case g.Ended == EndSessionEnded && g.EndReason != "":
		return "ended (" + string(g.EndReason) + ")"
	case g.Ended != "":
		return string(g.Ended)
	case g.expired(now):
		return string(EndExpired)
	}
	return "live"
}

// NewGrant is what the user approved, as the daemon hands it to Put. Tool
// and RequestID go to the approve audit record only.
type NewGrant struct {
	Scope     Scope
	Op        guard.Op
	Path      string // canonical
	Kind      guard.GrantKind
	Session   string
	Workflow  string
	Agent     string
	Tool      string
	RequestID string
	// For limits a session or device grant in time; zero is until the
	// session ends (session) or always (device). A once grant takes none.
	For time.Duration
	// Spent records a once grant as used by its own approval, in the same
	// step: the calls that waited on the request are the one use the
	// person allowed, so the grant never serves another call.
	Spent bool
}

// validate refuses what may never become a grant; it fails closed.
func (n NewGrant) validate() error {
	if _, err := ParseScope(string(n.Scope)); err != nil {
		return err
	}
	if n.Op == guard.OpConnect {
		return n.validateConnect()
	}
	if _, err := guard.ParseOp(string(n.Op)); err != nil {
		return fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	if n.Spent && n.Scope != ScopeOnce {
		return fmt.Errorf("%w: only a once grant is spent by its approval", ErrInvalid)
	}
	if n.Kind != guard.KindFile && n.Kind != guard.KindFolder {
		return fmt.Errorf("%w: unknown kind %q (want file or folder)", ErrInvalid, n.Kind)
	}
	if n.For < 0 || n.For > 0 && n.Scope == ScopeOnce {
		return fmt.Errorf("%w: a %s grant cannot last %s", ErrInvalid, n.Scope, n.For)
	}
	if n.Scope == ScopeDevice && n.Op != guard.OpRead {
		return fmt.Errorf("%w: cannot grant %s at device scope", ErrDeviceReadOnly, n.Op)
	}
	if n.Scope != ScopeDevice && n.Session == "" {
		return fmt.Errorf("%w: a %s grant needs a session", ErrInvalid, n.Scope)
	}
	return checkCanonical(n.Path)
}

// validateConnect refuses a connection grant that names anything but one
// destination in its one spelling (guard.Destination), or a folder; it
// may last as a file grant may, at device scope too (a connection
// changes nothing on the machine).
func (n NewGrant) validateConnect() error {
	if n.Kind != guard.KindFile {
		return fmt.Errorf("%w: a connection grant names one destination, not a %s", ErrInvalid, n.Kind)
	}
	if n.For < 0 || n.For > 0 && n.Scope == ScopeOnce {
		return fmt.Errorf("%w: a %s grant cannot last %s", ErrInvalid, n.Scope, n.For)
	}
	if n.Spent && n.Scope != ScopeOnce {
		return fmt.Errorf("%w: only a once grant is spent by its approval", ErrInvalid)
	}
	if n.Scope != ScopeDevice && n.Session == "" {
		return fmt.Errorf("%w: a %s grant needs a session", ErrInvalid, n.Scope)
	}
	d, err := guard.Destination(n.Path)
	if err != nil || d != n.Path {
		return fmt.Errorf("%w: %q is not a destination as pathgrant spells it (host:port)", ErrInvalid, n.Path)
	}
	return nil
}

// checkCanonical refuses a path that is not already canonical (relative,
// unclean, or through a symlink): a grant must name what the kernel reaches.
func checkCanonical(path string) error {
	c, err := guard.Canonicalizer{}.Canonical(path, "/", true)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	if c != path {
		return fmt.Errorf("%w: path %q is not canonical (it resolves to %q)", ErrInvalid, path, c)
	}
	return nil
}
