package grantsadmin

import (
	"context"
	"time"

	"pathgrant/apiclient"
	"pathgrant/grants"
	"pathgrant/wire"
)

// callTimeout bounds each call to the daemon.
const callTimeout = 10 * time.Second

// daemon is an Admin that goes through a daemon's socket.
type daemon struct{ c *apiclient.Client }

// Daemon returns an Admin that goes through the daemon c talks to,
// without checking that one answers (Dial does).
func Daemon(c *apiclient.Client) Admin { return daemon{c} }

func call() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), callTimeout)
}

// List asks the daemon; it filters by session, and lists ended and
// expired grants only when asked for both.
func (d daemon) List(f grants.Filter) ([]grants.Grant, error) {
	ctx, cancel := call()
	defer cancel()
	gs, err := d.c.Grants(ctx, f.Session, f.IncludeRevoked || f.IncludeExpired)
	if err != nil {
		return nil, errorsLike("list grants", err)
	}
	return gs, nil
}

// State names g's stored state now: the daemon does not tell its device
// binding, so a foreign device grant shows as its stored state.
func (d daemon) State(g grants.Grant) string { return g.State(time.Now()) }

func (d daemon) Revoke(id string) error {
	ctx, cancel := call()
	defer cancel()
	if err := d.c.Revoke(ctx, id); err != nil {
		return errorsLike("revoke grant "+id, err)
	}
	return nil
}

func (d daemon) RevokeSession(session string) (int, error) {
	ctx, cancel := call()
	defer cancel()
	ids, err := d.c.RevokeSession(ctx, session)
	if err != nil {
		return 0, errorsLike("revoke session "+session, err)
	}
	return len(ids), nil
}

func (d daemon) Audit(f grants.AuditFilter) ([]grants.Record, error) {
	ctx, cancel := call()
	defer cancel()
	recs, err := d.c.Audit(ctx, f)
	if err != nil {
		return nil, errorsLike("read audit log", err)
	}
	return recs, nil
}

func (d daemon) EachAudit(f grants.AuditFilter, fn func(grants.Record) error) error {
	recs, err := d.Audit(f)
	if err != nil {
		return err
	}
	for _, r := range recs {
		if err := fn(r); err != nil {
			return err
		}
	}
	return nil
}

func (d daemon) Denials() ([]wire.Denial, error) {
	ctx, cancel := call()
	defer cancel()
	ds, err := d.c.Denials(ctx)
	if err != nil {
		return nil, errorsLike("list denials", err)
	}
	return ds, nil
}

func (d daemon) LiftDenial(id string) error {
	ctx, cancel := call()
	defer cancel()
	if err := d.c.LiftDenial(ctx, id); err != nil {
		return errorsLike("lift denial "+id, err)
	}
	return nil
}

func (d daemon) Where() string { return "the daemon at " + d.c.Socket }

// Close drops the idle connections; the daemon keeps its store.
func (d daemon) Close() error {
	d.c.CloseIdle()
	return nil
}
