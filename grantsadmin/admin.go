// Package grantsadmin lists and revokes grants and reads the audit log in
// one way for every front end (the CLI, the settings window): through the
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

// errorsLike maps a daemon refusal to the store error it stands for, so
// callers branch on grants' errors whichever Admin they hold.
func errorsLike(err error) error {
	var ae *wire.DaemonError
	if !errors.As(err, &ae) {
		return err
	}
	switch ae.Status {
	case http.StatusNotFound:
		return fmt.Errorf("%w: %w", grants.ErrNotFound, err)
	case http.StatusConflict:
		return fmt.Errorf("%w: %w", grants.ErrEnded, err)
	}
	return err
}
