package engine

import (
	"errors"
	"fmt"

	"pathgrant/grants"
)

// Code is what kind of refusal an Error is. The transport maps it to its
// own status (package ipc: HTTP); the engine knows nothing of HTTP.
type Code uint8

// The refusals.
const (
	BadRequest  Code = iota + 1 // the request itself is wrong
	Forbidden                   // the caller may not do this
	NotFound                    // no such session, request or grant
	Conflict                    // sources disagree, or the state forbids it now
	Gone                        // the session ended or expired
	TooMany                     // a bound on sessions or requests is reached
	Unavailable                 // the engine cannot do it on this machine now
	Internal                    // the store or the system failed
)

// Error is a refusal: its Code, the audit kind it is recorded under (for
// session and peer refusals), and one line saying why.
type Error struct {
	Code Code
	Kind grants.Kind
	Msg  string
}

func (e *Error) Error() string { return e.Msg }

func errorf(code Code, kind grants.Kind, format string, args ...any) *Error {
	return &Error{Code: code, Kind: kind, Msg: fmt.Sprintf(format, args...)}
}

// prefixError is the refusal of an id or prefix that names no single
// thing: NotFound, or BadRequest for one too short or ambiguous.
func prefixError(what, prefix string, err error) *Error {
	if errors.Is(err, grants.ErrNotFound) {
		return errorf(NotFound, "", "no %s %s", what, prefix)
	}
	return errorf(BadRequest, "", "%s %v", what, err)
}
