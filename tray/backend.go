// Package tray is pathgrant's system-tray menu and its settings window
// (grants, audit log, pending requests).
package tray

import (
	"context"
	"time"

	"pathgrant/apiclient"
	"pathgrant/grants"
	"pathgrant/grantsadmin"
	"pathgrant/wire"
)

// Backend is what the settings window reads and changes: the daemon
// through the app's link (applink.App), or one reached over its socket
// (Remote), for a headless daemon's `pathgrant settings`.
type Backend interface {
	Pending() ([]wire.Request, error)
	// Grants lists every grant, live or ended; the window filters them.
	Grants() ([]grants.Grant, error)
	Audit(grants.AuditFilter) ([]grants.Record, error)
	Revoke(id string) error
	RevokeSession(session string) (int, error)
	Decide(id string, d wire.Decision) error
	// Denials lists the remembered denials ("Deny for this session") of
	// every session; LiftDenial forgets one, so that access asks again.
	Denials() ([]wire.Denial, error)
	LiftDenial(id string) error
	// Asker raises the person's own approval requests: the audit's
	// Allow… and the grants' New grant… and Edit…. Nothing is granted by
	// the call: the request is decided in the inbox like any other.
	grantsadmin.Asker
}

// refusesAsking marks a backend whose Asker always refuses (the shared
// socket offers no such route): the window then offers no Allow…, New
// grant… or Edit… rather than buttons that can only fail.
type refusesAsking interface {
	refusesAsking()
}

// sessionLister is what a backend may also offer: the daemon's sessions
// with their agent, project folder and start, for labels.
type sessionLister interface {
	Sessions() ([]wire.SessionInfo, error)
}

// Sessions implements sessionLister over the socket (GET /v1/sessions).
func (r Remote) Sessions() ([]wire.SessionInfo, error) {
	c, cancel := ctx()
	defer cancel()
	return r.Client.Sessions(c)
}

// Remote is a daemon reached over its socket, for `pathgrant settings`.
// Grants, the audit log and revokes go through grantsadmin, the one way
// every front end reaches them.
type Remote struct {
	Client *apiclient.Client
	// NoAsker refuses Allow… and new grants: only the app's private link
	// raises the person's own requests, never the shared socket.
	grantsadmin.NoAsker
}

func (Remote) refusesAsking() {}

const remoteTimeout = 5 * time.Second

func ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), remoteTimeout)
}

func (r Remote) admin() grantsadmin.Admin { return grantsadmin.Daemon(r.Client) }

// Pending implements Backend.
func (r Remote) Pending() ([]wire.Request, error) {
	c, cancel := ctx()
	defer cancel()
	return r.Client.Pending(c)
}

// everyGrant selects live and ended grants alike; the window filters them.
var everyGrant = grants.Filter{IncludeRevoked: true, IncludeExpired: true}

// Grants implements Backend.
func (r Remote) Grants() ([]grants.Grant, error) { return r.admin().List(everyGrant) }

// Audit implements Backend.
func (r Remote) Audit(f grants.AuditFilter) ([]grants.Record, error) { return r.admin().Audit(f) }

// Revoke implements Backend.
func (r Remote) Revoke(id string) error { return r.admin().Revoke(id) }

// RevokeSession revokes every live grant approved in session in one
// request to the daemon.
func (r Remote) RevokeSession(session string) (int, error) { return r.admin().RevokeSession(session) }

// Decide implements Backend.
func (r Remote) Decide(id string, d wire.Decision) error {
	c, cancel := ctx()
	defer cancel()
	_, err := r.Client.Decide(c, id, d)
	return err
}

// Denials implements Backend.
func (r Remote) Denials() ([]wire.Denial, error) {
	c, cancel := ctx()
	defer cancel()
	return r.Client.Denials(c)
}

// LiftDenial implements Backend.
func (r Remote) LiftDenial(id string) error {
	c, cancel := ctx()
	defer cancel()
	return r.Client.LiftDenial(c, id)
}
