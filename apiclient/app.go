package apiclient

import (
	"context"
	"net/http"
	"net/url"

	"pathgrant/wire"
)

// Sessions lists the sessions the daemon holds, live and recently ended
// (the person's alone), to label grants, requests and denials.
func (c *Client) Sessions(ctx context.Context) ([]wire.SessionInfo, error) {
	var out []wire.SessionInfo
	err := c.Do(ctx, http.MethodGet, wire.PathSessions, nil, &out)
	return out, err
}

// Denials lists every session's remembered denials (the person's alone).
func (c *Client) Denials(ctx context.Context) ([]wire.Denial, error) {
	var out []wire.Denial
	err := c.Do(ctx, http.MethodGet, wire.PathDenials, nil, &out)
	return out, err
}

// LiftDenial forgets a remembered denial (its id or a unique prefix of it):
// that access asks the person again.
func (c *Client) LiftDenial(ctx context.Context, id string) error {
	return c.Do(ctx, http.MethodDelete, wire.PathDenials+"/"+url.PathEscape(id), nil, nil)
}

// Raise asks the running app to show its own window (wire.ViewInbox or
// wire.ViewSettings). A headless daemon answers 404.
func (c *Client) Raise(ctx context.Context, view string) error {
	return c.Do(ctx, http.MethodPost, wire.PathRaise, wire.Raise{View: view}, nil)
}
