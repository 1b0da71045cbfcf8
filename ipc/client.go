package ipc

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sync"
	"syscall"
	"time"

	"pathgrant/grants"
)

// Client talks to the daemon over its socket. Session and Token, when set,
// are sent as headers on every request. It speaks HTTP/1.1 on its own
// connections (no transport goroutines), keeping a few idle ones for reuse:
// a check is one write and one read on an open connection.
type Client struct {
	Socket  string
	Session string
	Token   string

	mu   sync.Mutex
	idle []*clientConn
}

// maxIdle bounds the connections a client keeps open between calls.
const maxIdle = 4

// maxAnswer bounds an answer the client reads: lists come in pages far
// smaller, and the grants and audit lists stay well within it.
const maxAnswer = 16 << 20

type clientConn struct {
	net.Conn
	br     *bufio.Reader
	bw     *bufio.Writer
	reused bool // kept from an earlier call
}

// NewClient returns a client for the socket at path.
func NewClient(path string) *Client {
	return &Client{Socket: path}
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

// CloseIdle closes the connections kept for reuse.
func (c *Client) CloseIdle() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, cc := range c.idle {
		cc.Close()
	}
	c.idle = nil
}

// conn returns a kept connection or a new one.
func (c *Client) conn(ctx context.Context) (*clientConn, error) {
	c.mu.Lock()
	if n := len(c.idle); n > 0 {
		cc := c.idle[n-1]
		c.idle = c.idle[:n-1]
		c.mu.Unlock()
		cc.reused = true
		return cc, nil
	}
	c.mu.Unlock()
	nc, err := dialBusy(ctx, c.Socket)
	if err != nil {
		return nil, fmt.Errorf("pathgrant daemon at %s: %w", c.Socket, err)
	}
	return &clientConn{Conn: nc, br: bufio.NewReader(nc), bw: bufio.NewWriter(nc)}, nil
}

// dialBusy connects to the socket, trying again for up to busyWait while
// the daemon's accept queue is full (EAGAIN): under a flood of
// connections a caller waits its turn instead of failing at once.
func dialBusy(ctx context.Context, sock string) (net.Conn, error) {
	var d net.Dialer
	deadline := time.Now().Add(busyWait)
	pause := time.Millisecond
	for {
		nc, err := d.DialContext(ctx, "unix", sock)
		if err == nil || !errors.Is(err, syscall.EAGAIN) || time.Now().After(deadline) {
			return nc, err
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(pause):
		}
		pause = min(2*pause, 20*time.Millisecond)
	}
}

// busyWait bounds how long a client waits for a full accept queue.
const busyWait = 2 * time.Second

// closedUnread reports whether an exchange failed because the daemon had
// closed the connection before answering anything: writing hit a closed
// socket, or reading found its end with no byte of an answer.
func closedUnread(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET)
}

func (c *Client) release(cc *clientConn) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.idle) >= maxIdle {
		cc.Close()
		return
	}
	c.idle = append(c.idle, cc)
}

// do sends one request and decodes a 2xx JSON answer into out. The context
// bounds the whole exchange, including a long wait for a user decision.
func (c *Client) do(ctx context.Context, method, path string, in, out any) error {
	req, err := c.newRequest(ctx, method, path, in)
	if err != nil {
		return err
	}
	cc, err := c.conn(ctx)
	if err != nil {
		return err
	}
	stop := context.AfterFunc(ctx, func() { cc.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	resp, err := cc.exchange(req)
	if err != nil && cc.reused && ctx.Err() == nil && closedUnread(err) {
		// The daemon closed the kept connection (idle timeout, or room
		// made under load) before reading this request: send it again
		// on a new connection.
		cc.Close()
		stop()
		return c.do(ctx, method, path, in, out)
	}
	if err != nil {
		cc.Close()
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		return fmt.Errorf("pathgrant daemon at %s: %w", c.Socket, err)
	}
	err = decodeResponse(resp, out)
	_, derr := io.Copy(io.Discard, io.LimitReader(resp.Body, maxAnswer))
	if derr != nil || resp.Close || !stop() {
		cc.Close()
	} else {
		c.release(cc)
	}
	return err
}

func (c *Client) newRequest(ctx context.Context, method, path string, in any) (*http.Request, error) {
	var body io.Reader
	if in != nil {
		data, err := json.Marshal(in)
		if err != nil {
			return nil, fmt.Errorf("encode request: %w", err)
		}
		body = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx, method, "http://pathgrant"+path, body)
	if err != nil {
		return nil, err
	}
	if c.Session != "" {
		req.Header.Set(HeaderSession, c.Session)
	}
	if c.Token != "" {
		req.Header.Set(HeaderToken, c.Token)
	}
	req.Header.Set("Content-Type", "application/json")
	return req, nil
}

func (cc *clientConn) exchange(req *http.Request) (*http.Response, error) {
	if err := req.Write(cc.bw); err != nil {
		return nil, err
	}
	if err := cc.bw.Flush(); err != nil {
		return nil, err
	}
	return http.ReadResponse(cc.br, req)
}

func decodeResponse(resp *http.Response, out any) error {
	if resp.StatusCode/100 != 2 {
		var e Error
		_ = json.NewDecoder(io.LimitReader(resp.Body, maxBody)).Decode(&e)
		return &APIError{Status: resp.StatusCode, Kind: e.Kind, Msg: e.Error}
	}
	if out == nil {
		return nil
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxAnswer)).Decode(out); err != nil {
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

// Pending lists every approval request waiting for the user, oldest
// first, reading the daemon's pages one after the other; a client that
// holds a session's credentials lists that session's own.
func (c *Client) Pending(ctx context.Context) ([]Request, error) {
	var all []Request
	err := c.PendingPages(ctx, func(p []Request) error {
		all = append(all, p...)
		return nil
	})
	return all, err
}

// PendingPages calls each with every page of the pending approval
// requests in turn, oldest first, until the last page or an error.
func (c *Client) PendingPages(ctx context.Context, each func([]Request) error) error {
	after := ""
	for {
		q := url.Values{}
		if after != "" {
			q.Set("after", after)
		}
		var p RequestPage
		if err := c.do(ctx, http.MethodGet, c.own("")+"/v1/requests?"+q.Encode(), nil, &p); err != nil {
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
func (c *Client) Request(ctx context.Context, id string) (Request, error) {
	var out Request
	return out, c.do(ctx, http.MethodGet, c.own("")+"/v1/requests/"+url.PathEscape(id), nil, &out)
}

// Decide approves (scope once, session or device) or denies a request.
// Approving is the person's alone; a client that holds a session's
// credentials denies that session's own requests.
func (c *Client) Decide(ctx context.Context, id string, d Decision) (Request, error) {
	var out Request
	if own := c.own(""); own != "" && d == (Decision{Scope: "deny"}) {
		return out, c.do(ctx, http.MethodPost, own+"/v1/requests/"+url.PathEscape(id)+"/deny", nil, &out)
	}
	return out, c.do(ctx, http.MethodPost, "/v1/requests/"+url.PathEscape(id)+"/decision", d, &out)
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
	return out, c.do(ctx, http.MethodGet, own+"/v1/grants?"+q.Encode(), nil, &out)
}

// Revoke revokes one grant (one of its own session's, for a client that
// holds a session's credentials).
func (c *Client) Revoke(ctx context.Context, id string) error {
	return c.do(ctx, http.MethodDelete, c.own("")+"/v1/grants/"+url.PathEscape(id), nil, nil)
}

// RevokeSession revokes every live grant approved in session, in one
// request, and returns the revoked grants' ids.
func (c *Client) RevokeSession(ctx context.Context, session string) ([]string, error) {
	var out RevokedSession
	path := "/v1/sessions/" + url.PathEscape(session) + "/grants"
	if own := c.own(session); own != "" {
		path = own + "/v1/grants"
	}
	err := c.do(ctx, http.MethodDelete, path, nil, &out)
	return out.Revoked, err
}

// own is the path prefix of the session-scoped routes (/s/{session})
// when the client holds a session's credentials and asks about that
// session (or names none), and "" for the person's routes otherwise.
func (c *Client) own(session string) string {
	if c.Session == "" || c.Token == "" || (session != "" && session != c.Session) {
		return ""
	}
	return "/s/" + url.PathEscape(c.Session)
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
	return out, c.do(ctx, http.MethodGet, "/v1/audit?"+q.Encode(), nil, &out)
}

// Policy returns the session's effective permissions (the client's Session
// and Token name it).
func (c *Client) Policy(ctx context.Context) (Policy, error) {
	var out Policy
	return out, c.do(ctx, http.MethodGet, "/v1/policy", nil, &out)
}
