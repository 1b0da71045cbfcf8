package ipc

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"time"

	"pathgrant/grants"
)

// Client talks to the daemon over its socket. Session and Token, when set,
// are sent as headers on every request.
type Client struct {
	Socket  string
	Session string
	Token   string
	http    *http.Client
}

// NewClient returns a client for the socket at path.
func NewClient(path string) *Client {
	tr := &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", path)
		},
		MaxIdleConnsPerHost: 8,
		IdleConnTimeout:     20 * time.Second,
	}
	return &Client{Socket: path, http: &http.Client{Transport: tr}}
}

// APIError is a refusal from the daemon.
type APIError struct {
	Status int
	Kind   string
	Msg    string
}

func (e *APIError) Error() string {
	return fmt.Sprintf("pathgrant daemon: %s (HTTP %d)", e.Msg, e.Status)
}

// do sends one request and decodes a 2xx JSON answer into out.
func (c *Client) do(ctx context.Context, method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		data, err := json.Marshal(in)
		if err != nil {
			return fmt.Errorf("encode request: %w", err)
		}
		body = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx, method, "http://pathgrant"+path, body)
	if err != nil {
		return err
	}
	if c.Session != "" {
		req.Header.Set(HeaderSession, c.Session)
	}
	if c.Token != "" {
		req.Header.Set(HeaderToken, c.Token)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("pathgrant daemon at %s: %w", c.Socket, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		var e Error
		_ = json.NewDecoder(io.LimitReader(resp.Body, maxBody)).Decode(&e)
		return &APIError{Status: resp.StatusCode, Kind: e.Kind, Msg: e.Error}
	}
	if out == nil {
		return nil
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("decode answer: %w", err)
	}
	return nil
}

// Health reports whether a daemon answers.
func (c *Client) Health(ctx context.Context) error {
	return c.do(ctx, http.MethodGet, "/v1/health", nil, nil)
}

// Register registers a session and returns its id and token.
func (c *Client) Register(ctx context.Context, req SessionRequest) (SessionResponse, error) {
	var out SessionResponse
	return out, c.do(ctx, http.MethodPost, "/v1/sessions", req, &out)
}

// EndSession ends the session id (the client's Token must be its token).
func (c *Client) EndSession(ctx context.Context, id string) error {
	return c.do(ctx, http.MethodDelete, "/v1/sessions/"+url.PathEscape(id), nil, nil)
}

// Check asks the daemon for a decision.
func (c *Client) Check(ctx context.Context, req CheckRequest) (Answer, error) {
	var out Answer
	return out, c.do(ctx, http.MethodPost, "/v1/check", req, &out)
}

// Pending lists the approval requests waiting for the user.
func (c *Client) Pending(ctx context.Context) ([]Request, error) {
	var out []Request
	return out, c.do(ctx, http.MethodGet, "/v1/requests", nil, &out)
}

// Request returns one approval request.
func (c *Client) Request(ctx context.Context, id string) (Request, error) {
	var out Request
	return out, c.do(ctx, http.MethodGet, "/v1/requests/"+url.PathEscape(id), nil, &out)
}

// Decide approves (scope once, session or device) or denies a request.
func (c *Client) Decide(ctx context.Context, id string, d Decision) (Request, error) {
	var out Request
	return out, c.do(ctx, http.MethodPost, "/v1/requests/"+url.PathEscape(id)+"/decision", d, &out)
}

// Grants lists live grants, of one session when session is not empty.
func (c *Client) Grants(ctx context.Context, session string, all bool) ([]grants.Grant, error) {
	q := url.Values{}
	if session != "" {
		q.Set("session", session)
	}
	if all {
		q.Set("all", "1")
	}
	var out []grants.Grant
	return out, c.do(ctx, http.MethodGet, "/v1/grants?"+q.Encode(), nil, &out)
}

// Revoke revokes one grant.
func (c *Client) Revoke(ctx context.Context, id string) error {
	return c.do(ctx, http.MethodDelete, "/v1/grants/"+url.PathEscape(id), nil, nil)
}

// Audit returns audit records matching f.
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
	return out, c.do(ctx, http.MethodGet, "/v1/audit?"+q.Encode(), nil, &out)
}
