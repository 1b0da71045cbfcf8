// Package grantsadmin lists and revokes grants, lists and lifts the
// remembered denials and reads the audit log in one way for every front
// end (the CLI, the settings window): through the
// daemon when one answers on its socket, since the daemon owns the store
// while it runs and must publish each revoke to the session it affects;
// otherwise on the store file directly.
package grantsadmin

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"pathgrant/apiclient"
	"pathgrant/grants"
	"pathgrant/wire"
)

// Admin is where grants and the audit log are read and grants revoked.
// Both implementations report the same errors: an unknown grant wraps
// grants.ErrNotFound, one that already ended grants.ErrEnded.
type Admin interface {
	// List returns the grants f selects, oldest first.
	List(f grants.Filter) ([]grants.Grant, error)
	// State names g's state now ("live", "expired", how it ended, or
	// "foreign-device" where the store's device binding is known).
	State(g grants.Grant) string
	// Revoke ends one grant.
	Revoke(id string) error
	// RevokeSession ends every live grant approved in session, device
	// grants included, in one step, and returns how many ended.
	RevokeSession(session string) (int, error)
	// Audit returns the audit records f selects, oldest first.
	Audit(f grants.AuditFilter) ([]grants.Record, error)
	// EachAudit calls fn for each record f selects, oldest first, and
	// stops at fn's first error.
	EachAudit(f grants.AuditFilter, fn func(grants.Record) error) error
	// Denials lists the remembered denials, for a session ("Deny for this
	// session") and on this device ("Deny on this device"), oldest first.
	Denials() ([]wire.Denial, error)
	// LiftDenial forgets one remembered denial (its id or a unique
	// prefix): that access asks the person again. An unknown one wraps
	// grants.ErrNotFound.
	LiftDenial(id string) error
	// Where names what this Admin works on, for messages.
	Where() string
	// Close releases the store file, if this Admin opened one.
	Close() error
}

// ProbeTimeout bounds the health check Open uses to decide whether a
// daemon answers.
const ProbeTimeout = 500 * time.Millisecond

// Open returns the daemon answering on socket, else the store file at
// store, opened without creating it (a missing store is an error wrapping
// fs.ErrNotExist: there is nothing to list). An empty socket skips the
// daemon; an empty store means only a daemon will do.
func Open(socket, store string) (Admin, error) {
	if socket != "" {
		if d, ok := Dial(socket); ok {
			return d, nil
		}
	}
	if store == "" {
		return nil, errors.New(wire.NotRunning(socket))
	}
	st, err := grants.Open(store, grants.Options{NoWatch: true, NoCreate: true})
	if err != nil {
		return nil, err
	}
	return File(st), nil
}

// Dial returns the daemon answering on socket, and false when none does
// within ProbeTimeout.
func Dial(socket string) (Admin, bool) {
	c := apiclient.New(socket)
	ctx, cancel := context.WithTimeout(context.Background(), ProbeTimeout)
	defer cancel()
	if err := c.Health(ctx); err != nil {
		c.CloseIdle()
		return nil, false
	}
	return Daemon(c), true
}

// refusal is the daemon's refusal told once, in its own words (it
// already names what was refused: "revoke grant X: grant has ended"),
// without a second prefix or its HTTP status; it is still the
// wire.DaemonError, and the store error it stands for, to errors.Is and
// errors.As.
type refusal struct {
	like error // grants.ErrNotFound, grants.ErrEnded, or nil
	d    *wire.DaemonError
}

func (r refusal) Error() string { return r.d.Msg }

func (r refusal) Unwrap() []error {
	if r.like == nil {
		return []error{r.d}
	}
	return []error{r.like, r.d}
}

// errorsLike maps a daemon refusal to the store error it stands for, so
// callers branch on grants' errors whichever Admin they hold; any other
// error (the daemon unreachable, a timeout) is said with what was being
// done.
func errorsLike(what string, err error) error {
	var ae *wire.DaemonError
	if !errors.As(err, &ae) {
		return fmt.Errorf("%s: %w", what, err)
	}
	switch ae.Status {
	case http.StatusNotFound:
		return refusal{grants.ErrNotFound, ae}
	case http.StatusConflict:
		return refusal{grants.ErrEnded, ae}
	}
	return refusal{nil, ae}
}
