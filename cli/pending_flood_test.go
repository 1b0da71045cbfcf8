package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"pathgrant/apiclient"
	"pathgrant/guard"
	"pathgrant/wire"
)

// TestPendingManyRequests: 3,000 pending requests (the per-session cap
// spread over sessions) all come out of `pathgrant pending --json` as
// one array, read from the daemon page by page.
func TestPendingManyRequests(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 300
	}
	const perSession = 32
	e := newDaemonEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// Every session first: once this process sends a check it counts as
	// an agent, which may register only children of its session.
	clients := make([]*apiclient.Client, (n+perSession-1)/perSession)
	for i := range clients {
		s, err := apiclient.New(e.sock).Register(ctx, wire.SessionRequest{Agent: "many", Cwd: e.work, Workspace: []string{e.work}})
		if err != nil {
			t.Fatalf("register: %v", err)
		}
		clients[i] = apiclient.New(e.sock)
		clients[i].Session, clients[i].Token = s.ID, s.Token
	}
	for i := range n {
		c := clients[i/perSession]
		path := filepath.Join(e.dl, fmt.Sprintf("f%04d.csv", i))
		if err := os.WriteFile(path, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		if ans, err := c.Check(ctx, wire.CheckRequest{Op: guard.OpRead, Path: path}); err != nil || ans.Pending == "" {
			t.Fatalf("check %d: %+v %v", i, ans, err)
		}
	}
	out := daemonCmd("", false, nil, "pending", "--json", "--socket", e.sock).ok(t).stdout
	var listed []wire.Request
	if err := json.Unmarshal([]byte(out), &listed); err != nil || len(listed) != n {
		t.Fatalf("pending --json listed %d requests (%v), want %d", len(listed), err, n)
	}
	seen := map[string]bool{}
	for _, r := range listed {
		seen[r.ID] = true
	}
	if len(seen) != n {
		t.Fatalf("%d distinct requests, want %d", len(seen), n)
	}
}
