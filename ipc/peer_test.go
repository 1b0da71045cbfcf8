package ipc

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"pathgrant/apiclient"
	"pathgrant/grants"
	"pathgrant/guard"
	"pathgrant/wire"
)

// TestPeerCheck: a connection without kernel credentials, or from another
// uid, is refused before any handler runs, and audited.
func TestPeerCheck(t *testing.T) {
	e := newTestEnv(t)
	h := e.srv.Handler()
	for _, tc := range []struct {
		name string
		ctx  context.Context
	}{
		{"no credentials", context.Background()},
		{"another uid", context.WithValue(context.Background(), peerKey{}, &connInfo{peer: Peer{PID: 1, UID: uint32(os.Getuid() + 1)}})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := auditCount(t, e, grants.KindForged)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest("GET", "/v1/health", nil).WithContext(tc.ctx))
			if rec.Code != 403 || auditCount(t, e, grants.KindForged) != before+1 {
				t.Fatalf("status %d, forged records +%d", rec.Code, auditCount(t, e, grants.KindForged)-before)
			}
		})
	}
}

// TestAgentCannotApprove uses the real /proc lineage: an agent (a shell,
// a real child process) sends a check for a session through one of its
// processes, and another of its processes then tries to approve with the
// request's valid code, revoke a grant of the session and revoke all of
// them: each is refused as the agent's, and the request and grant stay.
// The daemon's own process is never marked: the person's client in it
// then approves with the same code.
func TestAgentCannotApprove(t *testing.T) {
	curl, err := exec.LookPath("curl")
	if err != nil {
		t.Skip("needs curl")
	}
	e := newTestEnv(t, func(c *Config) { c.Lineage = nil })
	s := e.register(wire.SessionRequest{Agent: "a"})
	dir := t.TempDir()
	g, _ := e.store.Put(grants.NewGrant{Scope: grants.ScopeSession, Op: guard.OpRead, Path: e.dl + "/other.csv", Kind: guard.KindFile, Session: s.ID})
	call := func(name string, args ...string) string {
		return fmt.Sprintf(`%s -s --unix-socket "$SOCK" -w '\n%%{http_code}' %s > "$DIR/%s"; `, curl, strings.Join(args, " "), name)
	}
	script := call("check", `-H "X-Session-ID: $ID" -H "X-Session-Token: $TOK" -d "$CHECK" http://pathgrant/v1/check`) +
		`while [ ! -s "$DIR/code" ]; do sleep 0.01; done; read RID CODE < "$DIR/code"; ` +
		call("decide", `-d "{\"scope\":\"device\",\"code\":\"$CODE\"}" "http://pathgrant/v1/requests/$RID/decision"`) +
		call("revoke", `-X DELETE "http://pathgrant/v1/grants/$GID"`) +
		call("revokeall", `-X DELETE "http://pathgrant/v1/sessions/$ID/grants"`) + `echo done > "$DIR/done"`
	agent := exec.Command("/bin/sh", "-c", script)
	agent.Env = append(os.Environ(), "SOCK="+e.sock, "DIR="+dir, "ID="+s.ID, "TOK="+s.Token, "GID="+g.ID,
		`CHECK={"op":"read","path":"`+e.dl+`/report.csv"}`)
	if err := agent.Start(); err != nil {
		t.Fatal(err)
	}
	defer agent.Wait()
	var ans wire.Answer
	if err := json.Unmarshal([]byte(strings.Split(waitFile(t, dir+"/check"), "\n")[0]), &ans); err != nil || ans.Pending == "" {
		t.Fatalf("check: %+v %v", ans, err)
	}
	code := e.code(ans.Pending)
	mustWrite(t, dir+"/code", ans.Pending+" "+code+"\n")
	waitFile(t, dir+"/done")
	for _, name := range []string{"decide", "revoke", "revokeall"} {
		if out := waitFile(t, dir+"/"+name); !strings.HasSuffix(out, "\n403") || !strings.Contains(out, "under an agent of session "+s.ID) {
			t.Errorf("%s from the agent: %q, want 403 as the agent's", name, out)
		}
	}
	if r, _ := e.srv.Request(ans.Pending); r.State != wire.StatePending {
		t.Fatalf("request %s after the agent's decision, want pending", r.State)
	}
	if gs, _ := e.store.List(grants.Filter{Session: s.ID}); len(gs) != 1 {
		t.Fatalf("grants after refused revokes: %+v", gs)
	}
	if r, err := e.client.Decide(context.Background(), ans.Pending, wire.Decision{Scope: "once", Code: code}); err != nil || r.State != wire.StateApproved {
		t.Fatalf("the person's decision: %+v %v, want approved", r, err)
	}
}

// waitFile returns the content of a file another process writes.
func waitFile(t *testing.T, path string) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if data, err := os.ReadFile(path); err == nil && len(data) > 0 {
			return string(data)
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%s never written", path)
	return ""
}

// TestListener: socket modes, a stale socket replaced, a live one refused.
func TestListener(t *testing.T) {
	dir := t.TempDir() + "/run"
	path := dir + "/pathgrant.sock"
	ln, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]os.FileMode{dir: 0o700, path: 0o600} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s mode %v, want %v", p, fi.Mode().Perm(), want)
		}
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	if _, err := Listen(path); err == nil || !strings.Contains(err.Error(), "already running") {
		t.Fatalf("second listener: %v, want already running", err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close() // leaves the socket file behind, as a crash would
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("stale socket file missing: %v", err)
	}
	ln2, err := Listen(path)
	if err != nil {
		t.Fatalf("stale socket not replaced: %v", err)
	}
	ln2.Close()
	if err := os.WriteFile(path, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Listen(path); err == nil {
		t.Fatal("a regular file at the socket path was replaced")
	}
	open := filepath.Join(t.TempDir(), "open")
	os.Mkdir(open, 0o755)
	if _, err := Listen(open + "/s.sock"); err == nil {
		t.Fatal("socket folder readable by others accepted")
	}
}

// TestEvents: the session's event stream carries the same answer the
// agent got, and then the decision; never a token or environment value.
func TestEvents(t *testing.T) {
	e := newTestEnv(t)
	s := e.register(wire.SessionRequest{Agent: "a", Env: map[string]string{"API_KEY": "sekrit-value"}})
	req, _ := http.NewRequest("GET", "http://pathgrant/s/"+s.ID+"/v1/events", nil)
	req.Header.Set(wire.HeaderToken, s.Token)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	resp, err := rawClient(e.sock).Transport.RoundTrip(req.WithContext(ctx))
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("events: %v %v", resp, err)
	}
	defer resp.Body.Close()
	ans, _ := e.clientFor(s).Check(context.Background(), wire.CheckRequest{Command: "cat ~/Downloads/report.csv", Tool: "Bash"})
	e.as(userLineage)
	if _, err := e.client.Decide(context.Background(), ans.Pending, wire.Decision{Scope: "deny"}); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(resp.Body)
	var got []wire.Event
	for len(got) < 2 && sc.Scan() {
		line := sc.Text()
		if strings.Contains(line, "sekrit") || strings.Contains(line, s.Token) {
			t.Fatalf("event leaks a secret: %s", line)
		}
		if data, ok := strings.CutPrefix(line, "data: "); ok {
			var ev wire.Event
			if err := json.Unmarshal([]byte(data), &ev); err != nil {
				t.Fatal(err)
			}
			got = append(got, ev)
		}
	}
	if len(got) != 2 || got[0].Type != wire.EventRequestCreated || got[0].Answer == nil ||
		got[0].Answer.Pending != ans.Pending || got[0].Answer.Path != ans.Path || got[0].Answer.Tool != "Bash" ||
		got[1].Type != wire.EventRequestDecided || got[1].Request.State != wire.StateDenied {
		t.Fatalf("events %+v", got)
	}
}

// TestEndSession: ending a session stops its grants and its requests.
func TestEndSession(t *testing.T) {
	e := newTestEnv(t)
	s := e.register(wire.SessionRequest{Agent: "a"})
	c := e.clientFor(s)
	g, err := e.store.Put(grants.NewGrant{Scope: grants.ScopeSession, Op: guard.OpRead, Path: e.dl + "/report.csv", Kind: guard.KindFile, Session: s.ID})
	if err != nil {
		t.Fatal(err)
	}
	if ans, _ := c.Check(context.Background(), wire.CheckRequest{Command: "cat ~/Downloads/report.csv"}); ans.Decision != guard.Allow {
		t.Fatalf("granted read: %+v", ans)
	}
	if err := apiclient.New(e.sock).EndSession(context.Background(), s.ID); statusOf(err) != 403 {
		t.Fatalf("ending without the token: %v", err)
	}
	if err := c.EndSession(context.Background(), s.ID); err != nil {
		t.Fatal(err)
	}
	if got, _ := e.store.Get(g.ID); got.Live(time.Now()) {
		t.Fatalf("grant still live after session end: %+v", got)
	}
	if _, err := c.Check(context.Background(), wire.CheckRequest{Command: "ls"}); statusOf(err) != 410 {
		t.Fatalf("check after end: %v, want 410", err)
	}
}

// TestPeerPinned: a peer's start time is read from /proc only while the
// kernel's pin on the connecting process (SO_PEERPIDFD) shows it is still
// there, so a peer that exited and was reaped before its lineage was read
// gets a failed lineage, even when its pid already names another live
// process (played here by this test process).
func TestPeerPinned(t *testing.T) {
	if !peerPidfdWorks() {
		t.Skip("no SO_PEERPIDFD on this kernel: the start time is read at accept")
	}
	for _, tc := range []struct {
		name           string
		reaped, reused bool
	}{
		{"live peer", false, false},
		{"reaped peer", true, false},
		{"reaped peer, pid reused", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ci := acceptFrom(t, tc.reaped)
			if tc.reused {
				ci.peer.PID = int32(os.Getpid())
			}
			start := ci.pinnedStart()
			_, complete := peerLineage(ci.peer.PID, start).whole()
			if tc.reaped != (start == 0) || tc.reaped == complete {
				t.Fatalf("start %d, lineage complete %v", start, complete)
			}
			if _, p, _, err := procInfo(ci.peer.PID); !tc.reaped && (err != nil || p.Start != start) {
				t.Fatalf("pinned start %d, /proc says %d (%v)", start, p.Start, err)
			}
		})
	}
}

// acceptFrom accepts a connection from another process, which has exited
// and been reaped by then when reaped is set, and returns its connInfo.
func acceptFrom(t *testing.T, reaped bool) *connInfo {
	t.Helper()
	ln, err := Listen(t.TempDir() + "/run/s.sock")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	peer := startFlooder(t, ln.Addr().String(), 1)
	peer.held(t)
	if reaped {
		peer.stop()
	}
	c, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ci, ok := newConnInfo(c)
	if !ok || ci.peer.PID != int32(peer.cmd.Process.Pid) {
		t.Fatalf("peer %+v ok %v, want pid %d", ci, ok, peer.cmd.Process.Pid)
	}
	return ci
}
