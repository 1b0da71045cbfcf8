package ipc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync/atomic"
	"testing"

	"pathgrant/apiclient"
	"pathgrant/engine"
	"pathgrant/guard"
	"pathgrant/wire"
)

// TestDuplicatesRefused: a session header, a query parameter or a JSON
// key given twice is 400, never "first one wins".
func TestDuplicatesRefused(t *testing.T) {
	e := newTestEnv(t)
	s := e.register(wire.SessionRequest{Agent: "a"})
	tests := []struct {
		name, method, path, body string
		headers                  [][2]string
	}{
		{"two session headers", "GET", "/v1/policy", "", [][2]string{{wire.HeaderSession, s.ID}, {wire.HeaderSession, s.ID}, {wire.HeaderToken, s.Token}}},
		{"two token headers", "GET", "/v1/policy", "", [][2]string{{wire.HeaderSession, s.ID}, {wire.HeaderToken, s.Token}, {wire.HeaderToken, "x"}}},
		{"two session query values", "GET", "/v1/policy?session=" + s.ID + "&session=" + s.ID, "", [][2]string{{wire.HeaderToken, s.Token}}},
		{"two limits", "GET", "/v1/requests?limit=1&limit=2", "", nil},
		{"duplicate top-level key", "POST", "/v1/check", `{"op":"read","path":"/x","op":"write"}`, [][2]string{{wire.HeaderSession, s.ID}, {wire.HeaderToken, s.Token}}},
		{"duplicate nested key", "POST", "/v1/sessions", `{"agent":"a","cwd":"` + e.work + `","workspace":["` + e.work + `"],"env":{"A":"1","A":"2"}}`, nil},
		{"duplicate key in a decision", "POST", "/v1/requests/x/decision", `{"scope":"deny","scope":"once"}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(tt.method, "http://pathgrant"+tt.path, bytes.NewReader([]byte(tt.body)))
			for _, h := range tt.headers {
				req.Header.Add(h[0], h[1])
			}
			e.as(userLineage)
			resp, err := rawClient(e.sock).Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusBadRequest {
				t.Fatalf("status %d (%s), want 400", resp.StatusCode, body)
			}
		})
	}
}

// TestUnreadableLineage: a decision or revoke from a caller whose lineage
// cannot be read is refused as if it were an agent's, and nothing is
// granted.
func TestUnreadableLineage(t *testing.T) {
	var fail atomic.Bool
	e := newTestEnv(t, func(c *Config) {
		played := c.Lineage
		c.Lineage = func(pid int32) ([]engine.LineageEntry, error) {
			if fail.Load() {
				return nil, errors.New("/proc/1234/stat: no such process")
			}
			return played(pid)
		}
	})
	c := e.clientFor(e.register(wire.SessionRequest{Agent: "a"}))
	ans, err := c.Check(context.Background(), wire.CheckRequest{Op: guard.OpRead, Path: e.dl + "/report.csv"})
	if err != nil || ans.Pending == "" {
		t.Fatal(ans, err)
	}
	fail.Store(true)
	e.as(userLineage)
	_, err = e.client.Decide(context.Background(), ans.Pending, wire.Decision{Scope: "device", Code: e.codeFor(ans.Pending, "device")})
	if statusOf(err) != http.StatusForbidden {
		t.Fatalf("decision from an unreadable lineage: %v, want 403", err)
	}
	if err := e.client.Revoke(context.Background(), "g-x"); statusOf(err) != http.StatusForbidden {
		t.Fatalf("revoke from an unreadable lineage: %v, want 403", err)
	}
	if r, _ := e.srv.Engine().Request(ans.Pending); r.State != wire.StatePending {
		t.Fatalf("state %s, want pending", r.State)
	}
}

// TestRequestPages: the pending list comes in pages that the client
// follows to the end, each request once, oldest first: the person's list
// of every session's, and the session's own (its own credentials).
func TestRequestPages(t *testing.T) {
	e := newTestEnv(t, func(c *Config) { c.PendingCap = 300 })
	c := e.clientFor(e.register(wire.SessionRequest{Agent: "a"}))
	const n = 250
	for i := range n {
		path := fmt.Sprintf("%s/f%03d.csv", e.dl, i)
		mustWrite(t, path, "x")
		if _, err := c.Check(context.Background(), wire.CheckRequest{Op: guard.OpRead, Path: path}); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name   string
		client *apiclient.Client
		as     []engine.LineageEntry
	}{{"own session, from its agent", c, agentLineage}, {"person", e.client, userLineage}} {
		t.Run(tc.name, func(t *testing.T) {
			e.as(tc.as)
			tc.client.CloseIdle()
			checkPages(t, tc.client, n)
		})
	}
	if _, body := send(t, rawClient(e.sock), "GET", "/v1/requests?after=nonsense", nil, nil); !bytes.Contains(body, []byte("cursor")) {
		t.Fatalf("malformed cursor: %s", body)
	}
}

// checkPages follows c's pending pages to the end: n requests in 3 pages,
// each once, oldest first.
func checkPages(t *testing.T, c *apiclient.Client, n int) {
	t.Helper()
	pages := 0
	var got []wire.Request
	err := c.PendingPages(context.Background(), func(p []wire.Request) error {
		pages++
		got = append(got, p...)
		return nil
	})
	if err != nil || len(got) != n || pages != 3 {
		t.Fatalf("%d requests in %d pages (%v), want %d in 3", len(got), pages, err, n)
	}
	seen := map[string]bool{}
	for i, r := range got {
		if seen[r.ID] || (i > 0 && engine.RequestBefore(r, got[i-1])) {
			t.Fatalf("request %d (%s) repeated or out of order", i, r.ID)
		}
		seen[r.ID] = true
	}
}
