package wire

import "fmt"

// Error is every non-2xx body: a one-line message and, for session and
// peer refusals, the audit kind the refusal was recorded under.
type Error struct {
	Error string `json:"error"`
	Kind  string `json:"kind,omitempty"`
}

// DaemonError is a refusal from the daemon: any non-2xx answer.
type DaemonError struct {
	Status int
	Kind   string
	Msg    string
}

// Error is the daemon's own one-line message, nothing around it: every
// client already says "pathgrant CMD:" before it, and the status is
// Status's (a "pathgrant deny: pathgrant daemon: … (HTTP 404)" line said
// pathgrant twice and a number no person needs).
func (e *DaemonError) Error() string {
	if e.Msg == "" {
		return fmt.Sprintf("the daemon refused the call (status %d)", e.Status)
	}
	return e.Msg
}

// UnreachableError means no daemon accepted the connection.
type UnreachableError struct {
	Socket string
	Err    error
}

// Error is NotRunning's line: every client tells the agent (and the
// person reading over its shoulder) how to bring pathgrant back. The
// dial's own error stays behind Unwrap.
func (e *UnreachableError) Error() string { return NotRunning(e.Socket) }

// StartHint is how to start pathgrant, now and for good: the fix every
// client names when it cannot reach the daemon.
const StartHint = "start it with `pathgrant serve` (or once for good: `pathgrant install-desktop`)"

// NotRunning is the one line every client (hooks, the MCP bridge, the
// confined command's front end, the CLI) says when nothing answers on
// socket; the client adds what it did instead (denied, not run).
func NotRunning(socket string) string {
	return "pathgrant is not running (no answer on " + socket + "): " + StartHint
}

func (e *UnreachableError) Unwrap() error { return e.Err }
