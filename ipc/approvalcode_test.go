package ipc

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"pathgrant/apiclient"
	"pathgrant/engine"
	"pathgrant/grants"
	"pathgrant/guard"
	"pathgrant/wire"
)

// codeEnv is a daemon with one session and a helper that makes a pending
// request for a Downloads file, as the agent, and turns to the user.
type codeEnv struct {
	*testEnv
	c *apiclient.Client
}

func newCodeEnv(t *testing.T, mutate ...func(*Config)) codeEnv {
	e := newTestEnv(t, mutate...)
	return codeEnv{testEnv: e, c: e.clientFor(e.register(wire.SessionRequest{Agent: "a"}))}
}

func (e codeEnv) pending(name string) string {
	e.t.Helper()
	e.as(agentLineage)
	ans, err := e.c.Check(context.Background(), wire.CheckRequest{Op: guard.OpRead, Path: e.dl + "/" + name})
	if err != nil || ans.Pending == "" {
		e.t.Fatalf("no pending request: %+v %v", ans, err)
	}
	e.as(userLineage)
	return ans.Pending
}

func (e codeEnv) decide(id string, d wire.Decision) (wire.Request, int) {
	r, err := e.client.Decide(context.Background(), id, d)
	return r, statusOf(err)
}

func (e codeEnv) state(id string) string {
	r, _ := e.srv.Engine().Request(id)
	return r.State
}

// TestApprovalCode: the right code approves once; a reused code, another
// request's code, a code spent wider than its choice, a missing code and
// wrong codes are refused, and the fifth wrong code denies the request.
func TestApprovalCode(t *testing.T) {
	t.Run("right code approves once; reused it is refused", func(t *testing.T) {
		e := newCodeEnv(t)
		id := e.pending("report.csv")
		code := e.codeFor(id, "session")
		if r, st := e.decide(id, wire.Decision{Scope: "session", Code: code}); st != 0 || r.State != wire.StateApproved {
			t.Fatalf("right code: %+v status %d", r, st)
		}
		if _, st := e.decide(id, wire.Decision{Scope: "device", Kind: guard.KindFolder, Code: code}); st != http.StatusConflict {
			t.Fatalf("reused code: status %d, want 409", st)
		}
		if gs, _ := e.store.List(grants.Filter{}); len(gs) != 1 || gs[0].Scope != grants.ScopeSession {
			t.Fatalf("grants %+v, want the one session grant", gs)
		}
	})
	t.Run("another request's code", func(t *testing.T) {
		e := newCodeEnv(t)
		a, b := e.pending("report.csv"), e.pending("other.csv")
		if _, st := e.decide(b, wire.Decision{Scope: "once", Code: e.code(a)}); st != http.StatusForbidden || e.state(b) != wire.StatePending {
			t.Fatalf("a's code for b: status %d, state %s", st, e.state(b))
		}
		if _, st := e.decide(a, wire.Decision{Scope: "once", Code: e.code(a)}); st != 0 {
			t.Fatalf("a's own code: status %d", st)
		}
	})
	t.Run("the folder when only the file was offered", func(t *testing.T) {
		e := newCodeEnv(t, func(c *Config) { c.Device.Protected = append(c.Device.Protected, c.Home+"/Downloads/keys") })
		id := e.pending("report.csv") // its folder holds a protected path: only the file was offerable
		before := auditCount(t, e.testEnv, grants.KindCode)
		if _, st := e.decide(id, wire.Decision{Scope: "device", Kind: guard.KindFolder, Code: e.codeFor(id, "device")}); st != http.StatusForbidden {
			t.Fatalf("the folder with the file's code: status %d, want 403", st)
		}
		if e.state(id) != wire.StatePending || auditCount(t, e.testEnv, grants.KindCode) != before+1 {
			t.Fatalf("state %s, code records +%d", e.state(id), auditCount(t, e.testEnv, grants.KindCode)-before)
		}
		if _, st := e.decide(id, wire.Decision{Scope: "device", Code: e.codeFor(id, "device")}); st != 0 {
			t.Fatalf("the file itself, with its code: status %d", st)
		}
	})
	t.Run("a stolen once code spent wider", func(t *testing.T) {
		e := newCodeEnv(t)
		id := e.pending("report.csv")
		once := e.codeFor(id, "once")
		for _, wider := range []wire.Decision{{Scope: "device", Kind: guard.KindFolder}, {Scope: "device"}, {Scope: "session"}, {Scope: "once", Kind: guard.KindFolder}} {
			wider.Code = once
			if _, st := e.decide(id, wider); st != http.StatusForbidden || e.state(id) != wire.StatePending {
				t.Fatalf("the once code for %+v: status %d, state %s; want 403, pending", wider, st, e.state(id))
			}
		}
		if r, st := e.decide(id, wire.Decision{Scope: "once", Code: once}); st != 0 || r.State != wire.StateApproved || r.Scope != "once" {
			t.Fatalf("the person's own once: %+v status %d", r, st)
		}
		if gs, _ := e.store.List(grants.Filter{}); len(gs) != 1 || gs[0].Scope != grants.ScopeOnce || gs[0].Kind != guard.KindFile {
			t.Fatalf("grants %+v, want the one once grant of the file", gs)
		}
	})
	t.Run("a limited code spent longer", func(t *testing.T) {
		e := newCodeEnv(t)
		id := e.pending("report.csv")
		hour := e.codeFor(id, "device+1h")
		for _, longer := range []string{"", "8h", "2h"} {
			if _, st := e.decide(id, wire.Decision{Scope: "device", For: longer, Code: hour}); st != http.StatusForbidden {
				t.Fatalf("the 1h code for device %q: status %d, want 403", longer, st)
			}
		}
		if r, st := e.decide(id, wire.Decision{Scope: "device", For: "30m", Code: hour}); st != 0 || r.State != wire.StateApproved {
			t.Fatalf("the 1h code for 30m: %+v status %d", r, st)
		}
	})
	t.Run("no code", func(t *testing.T) {
		e := newCodeEnv(t)
		id := e.pending("report.csv")
		for range engine.MaxCodeTries + 1 {
			if _, st := e.decide(id, wire.Decision{Scope: "once"}); st != http.StatusForbidden {
				t.Fatalf("no code: status %d", st)
			}
		}
		if e.state(id) != wire.StatePending {
			t.Fatalf("state %s after approvals without a code, want pending", e.state(id))
		}
		if _, st := e.decide(id, wire.Decision{Scope: "deny"}); st != 0 || e.state(id) != wire.StateDenied {
			t.Fatalf("deny needs no code: status %d, state %s", st, e.state(id))
		}
	})
	t.Run("fifth wrong code denies", func(t *testing.T) {
		e := newCodeEnv(t)
		id := e.pending("report.csv")
		wrong := "ABCDEFGH"
		if wrong == e.code(id) {
			wrong = "HGFEDCBA"
		}
		before := auditCount(t, e.testEnv, grants.KindCode)
		for i := 1; i <= engine.MaxCodeTries; i++ {
			_, st := e.decide(id, wire.Decision{Scope: "once", Code: wrong})
			want := wire.StatePending
			if i == engine.MaxCodeTries {
				want = wire.StateDenied
			}
			if st != http.StatusForbidden || e.state(id) != want {
				t.Fatalf("wrong code %d: status %d, state %s; want 403, %s", i, st, e.state(id), want)
			}
		}
		if n := auditCount(t, e.testEnv, grants.KindCode) - before; n != engine.MaxCodeTries {
			t.Fatalf("%d code records, want one per wrong code", n)
		}
		if _, st := e.decide(id, wire.Decision{Scope: "once", Code: e.code(id)}); st != http.StatusConflict {
			t.Fatalf("right code after the request was denied: status %d, want 409", st)
		}
		if gs, _ := e.store.List(grants.Filter{}); len(gs) != 0 {
			t.Fatalf("grants %+v, want none", gs)
		}
	})
}

// TestCodeNeverShown walks every GET route, an event stream and the audit
// log after a request was made, refused with wrong codes and approved: the
// code appears in none of them, nor in the daemon's own log (at every
// level: only the approver is given the code, and the headless one alone
// logs it), nor in the store's files.
func TestCodeNeverShown(t *testing.T) {
	var daemonLog lockedBuffer
	e := newCodeEnv(t, func(c *Config) {
		c.Logger = slog.New(slog.NewTextHandler(&daemonLog, &slog.HandlerOptions{Level: slog.LevelDebug}))
	})
	sess := e.register(wire.SessionRequest{Agent: "watched"})
	sc := e.clientFor(sess)
	events := make(chan string, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	go func() { events <- readEvents(ctx, e.sock, sess) }()
	time.Sleep(100 * time.Millisecond) // the stream is subscribed
	e.as(agentLineage)
	ans, err := sc.Check(context.Background(), wire.CheckRequest{Op: guard.OpRead, Path: e.dl + "/report.csv"})
	if err != nil || ans.Pending == "" {
		t.Fatalf("check: %+v %v", ans, err)
	}
	id, code := ans.Pending, e.codeFor(ans.Pending, "session")
	codes, _ := e.approver.codes.Load(id)
	e.as(userLineage)
	_, _ = e.decide(id, wire.Decision{Scope: "once", Code: "WRONGXYZ"})
	var bodies = map[string]string{}
	for _, rt := range e.srv.routes() {
		method, path, _ := strings.Cut(rt.pattern, " ")
		if method != http.MethodGet || strings.HasSuffix(path, "/events") {
			continue
		}
		path = strings.NewReplacer("{session}", sess.ID, "{id}", id).Replace(path)
		_, body := send(t, rawClient(e.sock), "GET", path, map[string]string{wire.HeaderToken: sess.Token}, nil)
		bodies[rt.pattern] = string(body)
	}
	if _, st := e.decide(id, wire.Decision{Scope: "session", Code: code}); st != 0 {
		t.Fatalf("approve: %d", st)
	}
	_, body := send(t, rawClient(e.sock), "GET", "/v1/audit", nil, nil)
	bodies["audit after approval"] = string(body)
	_, body = send(t, rawClient(e.sock), "GET", "/v1/requests/"+id, nil, nil)
	bodies["request after approval"] = string(body)
	cancel()
	bodies["event stream"] = <-events
	if err := sc.EndSession(context.Background(), sess.ID); err != nil {
		t.Fatalf("end the session: %v", err)
	}
	bodies["daemon log"] = daemonLog.String()
	stateDir := filepath.Join(filepath.Dir(e.home), "state")
	files, err := os.ReadDir(stateDir)
	if err != nil || len(files) == 0 {
		t.Fatalf("store folder %s: %v %v", stateDir, files, err)
	}
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(stateDir, f.Name()))
		if err != nil {
			t.Fatal(err)
		}
		bodies["store file "+f.Name()] = string(data)
	}
	if !strings.Contains(bodies["event stream"], "request.created") || !strings.Contains(bodies["daemon log"], sess.ID) || !strings.Contains(bodies["GET /v1/requests"], id) {
		t.Fatalf("the walk saw nothing: events %q, requests %q, log %q", bodies["event stream"], bodies["GET /v1/requests"], bodies["daemon log"])
	}
	for name, b := range bodies {
		for _, cc := range codes.([]wire.ChoiceCode) {
			if strings.Contains(strings.ToUpper(b), cc.Code) {
				t.Errorf("%s shows the approval code of %s: %s", name, cc.Key(), b)
			}
		}
	}
}

// readEvents reads sess's event stream until ctx ends.
func readEvents(ctx context.Context, sock string, sess wire.SessionResponse) string {
	req, _ := http.NewRequestWithContext(ctx, "GET", "http://pathgrant/s/"+sess.ID+"/v1/events", nil)
	req.Header.Set(wire.HeaderToken, sess.Token)
	c := rawClient(sock)
	c.Timeout = 0
	resp, err := c.Do(req)
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	var b strings.Builder
	sc := bufio.NewScanner(io.LimitReader(resp.Body, 1<<20))
	for sc.Scan() {
		b.WriteString(sc.Text() + "\n")
	}
	return b.String()
}

// lockedBuffer is a log destination the server's goroutines share.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
