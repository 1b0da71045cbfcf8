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

func (e *DaemonError) Error() string {
	return fmt.Sprintf("pathgrant daemon: %s (HTTP %d)", e.Msg, e.Status)
}

// UnreachableError means no daemon accepted the connection.
type UnreachableError struct {
	Socket string
	Err    error
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("pathgrant daemon not reachable at %s: %v", e.Socket, e.Err)
}

func (e *UnreachableError) Unwrap() error { return e.Err }
