package wire

// Header names a client may send. HeaderSession and HeaderToken name a
// session and prove it; HeaderCapability carries an exec capability or a
// report ticket, HeaderCommandHash the launch.CommandHash of the shell text the
// front end is about to run, which must be the text the capability was
// issued for.
const (
	HeaderSession     = "X-Session-ID"
	HeaderToken       = "X-Session-Token"
	HeaderCapability  = "X-Pathgrant-Capability"
	HeaderCommandHash = "X-Pathgrant-Command-Hash"
)

// The routes' paths. A path with {session} has a session's own form
// under OwnPrefix; {id} and {tool} are filled in by the caller.
const (
	PathHealth   = "/v1/health"
	PathSessions = "/v1/sessions"
	PathCheck    = "/v1/check"
	PathEvents   = "/v1/events"
	PathPolicy   = "/v1/policy"
	PathRequests = "/v1/requests"
	PathGrants   = "/v1/grants"
	PathAudit    = "/v1/audit"
	PathTools    = "/v1/tools"
	PathDenials  = "/v1/denials"
	// PathRaise asks the app that runs the daemon to show its window.
	PathRaise = "/v1/app/raise"
	// PathExec prepares a rewritten command's sandbox (identity: the
	// exec capability); PathReport explains the paths a failed command
	// was refused (identity: the report ticket PathExec answered with);
	// PathHold asks, for a command held in the open of a file, to read
	// it, waiting for the person (identity: the hold ticket, Hold.Ticket).
	PathExec   = "/v1/exec"
	PathReport = "/v1/exec/report"
	PathHold   = "/v1/exec/hold"
	// PathNet hands the daemon a confined command's way out of its
	// network namespace (identity: the net ticket, Net.Ticket): the
	// connection is the daemon's from its answer on, and the command's
	// inner step sends its loopback listener over it (Client.Take).
	PathNet = "/v1/exec/net"
)

// OwnPrefix is the prefix of a session's own routes: /s/{session}.
const OwnPrefix = "/s/"
