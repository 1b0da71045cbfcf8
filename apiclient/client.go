// Package apiclient is the Go client of the daemon's API: one typed
// method per route, over wire.Client (HTTP/1.1 on the socket, a few kept
// connections). The CLI, the MCP bridge, the tray's remote backend and
// the tests use it; the hook and the confinement front end use wire.Client
// alone.
package apiclient

import (
	"context"
	"net/http"
	"net/url"
	"time"

	"pathgrant/grants"
	"pathgrant/wire"
)

// Client talks to the daemon over its socket. Session and Token, when set,
// are sent as headers on every request.
type Client struct {
	wire.Client
}

// maxIdle bounds the connections a client keeps open between calls.
const maxIdle = 4

// New returns a client for the socket at path.
func New(path string) *Client {
	return &Client{wire.Client{Socket: path, Keep: maxIdle, Poll: true}}
}

// Health reports whether a daemon answers.
func (c *Client) Health(ctx context.Context) error {
	_, err := c.HealthInfo(ctx)
	return err
}

// HealthInfo is the daemon's state (GET /v1/health).
func (c *Client) HealthInfo(ctx context.Context) (wire.Health, error) {
	var h wire.Health
	return h, c.Do(ctx, http.MethodGet, wire.PathHealth, nil, &h)
}

// Register registers a session and returns its id and token.
func (c *Client) Register(ctx context.Context, req wire.SessionRequest) (wire.SessionResponse, error) {
	var out wire.SessionResponse
	return out, c.Do(ctx, http.MethodPost, wire.PathSessions, req, &out)
}

// EndSession ends the session id (the client's Token must be its token).
func (c *Client) EndSession(ctx context.Context, id string) error {
	return c.Do(ctx, http.MethodDelete, wire.PathSessions+"/"+url.PathEscape(id), nil, nil)
}

// Check asks the daemon for a decision.
func (c *Client) Check(ctx context.Context, req wire.CheckRequest) (wire.Answer, error) {
	var out wire.Answer
	return out, c.Do(ctx, http.MethodPost, wire.PathCheck, req, &out)
}

// Pending lists every approval request waiting for the user, oldest
// first, reading the daemon's pages one after the other; a client that
// holds a session's credentials lists that session's own.
func (c *Client) Pending(ctx context.Context) ([]wire.Request, error) {
	var all []wire.Request
	err := c.PendingPages(ctx, func(p []wire.Request) error {
		all = append(all, p...)
		return nil
	})
	return all, err
}

// PendingPages calls each with every page of the pending approval
// requests in turn, oldest first, until the last page or an error.
func (c *Client) PendingPages(ctx context.Context, each func([]wire.Request) error) error {
	after := ""
	for {
		q := url.Values{}
		if after != "" {
			q.Set("after", after)
		}
		var p wire.RequestPage
		if err := c.Do(ctx, http.MethodGet, c.own("")+wire.PathRequests+"?"+q.Encode(), nil, &p); err != nil {
			return err
		}
		if err := each(p.Requests); err != nil {
			return err
		}
		if p.Next == "" || len(p.Requests) == 0 {
			return nil
		}
		after = p.Next
	}
}

// Request returns one approval request (of the client's own session,
// when it holds one's credentials).
func (c *Client) Request(ctx context.Context, id string) (wire.Request, error) {
	var out wire.Request
	return out, c.Do(ctx, http.MethodGet, c.own("")+wire.PathRequests+"/"+url.PathEscape(id), nil, &out)
}

// Decide approves (scope once, session or device) or denies a request.
// Approving is the person's alone; a client that holds a session's
// credentials denies that session's own requests.
func (c *Client) Decide(ctx context.Context, id string, d wire.Decision) (wire.Request, error) {
	var out wire.Request
	if own := c.own(""); own != "" && d == (wire.Decision{Scope: "deny"}) {
		return out, c.Do(ctx, http.MethodPost, own+wire.PathRequests+"/"+url.PathEscape(id)+"/deny", nil, &out)
	}
	return out, c.Do(ctx, http.MethodPost, wire.PathRequests+"/"+url.PathEscape(id)+"/decision", d, &out)
}

// Grants lists live grants, of one session when session is not empty.
// Every grant is the person's to list; a client that holds a session's
// credentials lists those approved in its own session.
func (c *Client) Grants(ctx context.Context, session string, all bool) ([]grants.Grant, error) {
	q := url.Values{}
	own := c.own(session)
	if session != "" && own == "" {
		q.Set("session", session)
	}
	if all {
		q.Set("all", "1")
	}
	var out []grants.Grant
	return out, c.Do(ctx, http.MethodGet, own+wire.PathGrants+"?"+q.Encode(), nil, &out)
}

// Revoke revokes one grant (one of its own session's, for a client that
// holds a session's credentials).
func (c *Client) Revoke(ctx context.Context, id string) error {
	return c.Do(ctx, http.MethodDelete, c.own("")+wire.PathGrants+"/"+url.PathEscape(id), nil, nil)
}

// RevokeSession revokes every live grant approved in session, in one
// request, and returns the revoked grants' ids.
func (c *Client) RevokeSession(ctx context.Context, session string) ([]string, error) {
	var out wire.RevokedSession
	path := wire.PathSessions + "/" + url.PathEscape(session) + "/grants"
	if own := c.own(session); own != "" {
		path = own + wire.PathGrants
	}
	err := c.Do(ctx, http.MethodDelete, path, nil, &out)
	return out.Revoked, err
}

// own is the path prefix of the session-scoped routes (/s/{session})
// when the client holds a session's credentials and asks about that
// session (or names none), and "" for the person's routes otherwise.
func (c *Client) own(session string) string {
	if c.Session == "" || c.Token == "" || (session != "" && session != c.Session) {
		return ""
	}
	return wire.OwnPrefix + url.PathEscape(c.Session)
}

// Audit returns audit records matching f: the audit log is the person's
// alone.
func (c *Client) Audit(ctx context.Context, f grants.AuditFilter) ([]grants.Record, error) {
	q := url.Values{}
	if !f.Since.IsZero() {
		q.Set("since", f.Since.Format(time.RFC3339))
	}
	if f.Session != "" {
		q.Set("session", f.Session)
	}
	if f.Kind != "" {
		q.Set("kind", string(f.Kind))
	}
	var out []grants.Record
	return out, c.Do(ctx, http.MethodGet, wire.PathAudit+"?"+q.Encode(), nil, &out)
}

// Policy returns the session's effective permissions (the client's Session
// and Token name it).
func (c *Client) Policy(ctx context.Context) (wire.Policy, error) {
	var out wire.Policy
	return out, c.Do(ctx, http.MethodGet, wire.PathPolicy, nil, &out)
}

// ForSession returns a client for the socket at path that acts for a
// session: its id and token go with every request.
func ForSession(path, session, token string) *Client {
	c := New(path)
	c.Session, c.Token = session, token
	return c
}
