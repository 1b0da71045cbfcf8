package ipc_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"pathgrant/apiclient"
	"pathgrant/devicepolicy"
	"pathgrant/engine"
	"pathgrant/grants"
	"pathgrant/guard"
	"pathgrant/ipc"
	"pathgrant/ipc/ipctest"
	"pathgrant/mcp"
	"pathgrant/sandbox"
	"pathgrant/tools"
	"pathgrant/wire"
)

// recordingConfiner is a Launcher that prepares every command to run
// unconfined and remembers what each was to be confined to, so the walk
// can compare the session context every route ran a command under. Only
// for tests: the daemon runs sandbox.Launcher.
type recordingConfiner struct {
	mu   sync.Mutex
	runs []confined
}

type confined struct {
	Session   string
	Env       []string
	Blocked   []string
	Workspace []string
}

func (r *recordingConfiner) Launch(pol wire.Policy, _ devicepolicy.Policy, req wire.ExecRequest) (sandbox.Launch, error) {
	r.mu.Lock()
	r.runs = append(r.runs, confined{Session: pol.Session, Env: req.Env, Blocked: pol.BlockedWrite, Workspace: pol.Workspace})
	r.mu.Unlock()
	return sandbox.Launch{Prepared: wire.Prepared{Level: wire.LevelOff, Unconfined: "the walk records it"}}, nil
}

func (r *recordingConfiner) last() confined {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.runs) == 0 {
		return confined{}
	}
	return r.runs[len(r.runs)-1]
}

// walkEnv is a daemon whose peers all play one agent process, with a
// workspace, a blocked-write folder in it, a Downloads file and a key.
type walkEnv struct {
	root, home, work, dl, sock string
	srv                        *ipc.Server
	store                      *grants.Store
	conf                       *recordingConfiner
	http                       *http.Client
}

func newWalkEnv(t *testing.T) *walkEnv {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	e := &walkEnv{root: root, home: root + "/home", sock: root + "/run/pg.sock", conf: &recordingConfiner{}}
	e.work, e.dl = e.home+"/work", e.home+"/Downloads"
	for p, data := range map[string]string{e.work + "/main.go": "package main\n", e.work + "/locked/keep": "x",
		e.dl + "/report.csv": "id,value\n1,42\n", e.home + "/.ssh/id_rsa": "SECRET\n"} {
		walkWrite(t, p, data)
	}
	e.store = ipctest.OpenStore(t, root+"/store.db")
	cfg := ipc.Config{HooksBelow: true, Store: e.store, Home: e.home, Logger: ipctest.Quiet, Launcher: e.conf,
		Device: guard.DevicePolicy{EligibleReadOnly: []string{e.dl}}}
	ipc.PlayAgent(&cfg)
	e.srv = ipc.New(cfg)
	ipctest.Serve(t, e.srv, e.sock)
	e.http = &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "unix", e.sock)
		}}}
	return e
}

func walkWrite(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

// post sends one tool call over the socket and returns the status and
// the decoded result (zero on an error answer).
func (e *walkEnv) post(t *testing.T, path string, hdr map[string]string, body any) (int, tools.Result) {
	t.Helper()
	data, _ := json.Marshal(body)
	req, _ := http.NewRequest(http.MethodPost, "http://pathgrant"+path, bytes.NewReader(data))
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := e.http.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", path, err)
	}
	defer resp.Body.Close()
	var res tools.Result
	out, _ := io.ReadAll(resp.Body)
	if resp.StatusCode == http.StatusOK {
		if err := json.Unmarshal(out, &res); err != nil {
			t.Fatalf("POST %s: %v: %s", path, err, out)
		}
	}
	return resp.StatusCode, res
}

// bridge connects an SDK client to a bridge over an in-memory transport.
func (e *walkEnv) bridge(t *testing.T, caller *apiclient.Client, agentProcess bool) *sdk.ClientSession {
	t.Helper()
	t.Cleanup(caller.CloseIdle)
	ctx, cancel := context.WithCancel(context.Background())
	st, ct := sdk.NewInMemoryTransports()
	ss, err := mcp.NewServer(mcp.Options{Caller: caller, AgentProcess: agentProcess, Logger: ipctest.Quiet}).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "walk", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Wait(); cancel() })
	return cs
}

// viaBridge calls a tool through the bridge: the structured result, or
// the refusal's text when the daemon refused the call itself.
func viaBridge(t *testing.T, cs *sdk.ClientSession, tool string, args map[string]any) (tools.Result, string) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	var text strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	var out tools.Result
	if res.StructuredContent != nil {
		data, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(data, &out)
	}
	return out, text.String()
}

// route is one way a tool call reaches the daemon for a session.
type route struct {
	name string
	call func(t *testing.T, tool string, args map[string]any) tools.Result
}

// routesFor are the four routes for one session: the global route with
// X-Session-ID, the session's URL, the MCP bridge, and RunTool in process.
func (e *walkEnv) routesFor(t *testing.T, id, token string, agentBridge bool) []route {
	hdr := map[string]string{wire.HeaderSession: id}
	urlHdr := map[string]string{}
	if token != "" {
		hdr[wire.HeaderToken], urlHdr[wire.HeaderToken] = token, token
	}
	caller := apiclient.ForSession(e.sock, id, token)
	if agentBridge {
		caller = apiclient.New(e.sock)
	}
	cs := e.bridge(t, caller, agentBridge)
	socket := func(path string, h map[string]string) func(*testing.T, string, map[string]any) tools.Result {
		return func(t *testing.T, tool string, args map[string]any) tools.Result {
			raw, _ := json.Marshal(args)
			st, res := e.post(t, strings.Replace(path, "{tool}", tool, 1), h, wire.ToolRequest{Args: raw})
			if st != http.StatusOK {
				t.Fatalf("%s: HTTP %d", tool, st)
			}
			return res
		}
	}
	return []route{
		{"global+header", socket("/v1/tools/{tool}", hdr)},
		{"session url", socket("/s/"+id+"/v1/tools/{tool}", urlHdr)},
		{"mcp bridge", func(t *testing.T, tool string, args map[string]any) tools.Result {
			res, text := viaBridge(t, cs, tool, args)
			if res.Tool == "" {
				t.Fatalf("%s through the bridge: %s", tool, text)
			}
			return res
		}},
		{"in process", func(t *testing.T, tool string, args map[string]any) tools.Result {
			raw, _ := json.Marshal(args)
			res, err := e.srv.Engine().RunTool(context.Background(), id, tool, raw)
			if err != nil {
				t.Fatalf("%s in process: %v", tool, err)
			}
			return res
		}},
	}
}

// TestToolRoutesWalk sends the same tool calls through every route, for
// a launcher-registered session (token, blocked-write folder, shell
// environment) and for a hook-only session (bound to the agent process,
// reached by the bridge with agent_process): each route resolves the same
// session and reaches the same decision, runs commands with the same cwd,
// environment and policy, and raises the approval for the same session;
// a session grant approved once then serves every route.
func TestToolRoutesWalk(t *testing.T) {
	e := newWalkEnv(t)
	ctx := context.Background()
	launched, err := apiclient.New(e.sock).Register(ctx, wire.SessionRequest{Agent: "claude", Cwd: e.work, Workspace: []string{e.work},
		BlockedWrite: []string{e.work + "/locked"}, Env: map[string]string{"PG_MARK": "walk-env"}})
	if err != nil {
		t.Fatal(err)
	}
	hookOnly := "client-sess-1"
	if _, err := apiclient.New(e.sock).Check(ctx, wire.CheckRequest{SessionID: hookOnly, Cwd: e.work, Agent: "claude",
		Op: guard.OpRead, Path: e.work + "/main.go"}); err != nil {
		t.Fatalf("hook's first check: %v", err)
	}
	sessions := []struct {
		name, id, token string
		agentBridge     bool
	}{
		{"launched session", launched.ID, launched.Token, false},
		{"hook-only session", hookOnly, "", true},
	}
	for _, s := range sessions {
		t.Run(s.name, func(t *testing.T) {
			routes := e.routesFor(t, s.id, s.token, s.agentBridge)
			blockedVerdict := guard.Allow
			if s.token != "" {
				blockedVerdict = guard.Deny
			}
			calls := []struct {
				name, tool string
				args       map[string]any
				verdict    guard.Verdict
				eligible   bool
			}{
				{"read in the workspace", tools.ReadFile, map[string]any{"path": "main.go"}, guard.Allow, false},
				{"shell: cwd and environment", tools.ExecuteShellCommand, map[string]any{"command": "pwd; echo \"m=$PG_MARK\""}, guard.Allow, false},
				// blocked for the launched session only: the hook-only one has no blocked-write paths
				{"write to a blocked-write path", tools.WriteFile, map[string]any{"path": "locked/new", "content": "x"}, blockedVerdict, false},
				{"read a key", tools.ReadFile, map[string]any{"path": "~/.ssh/id_rsa"}, guard.Deny, false},
				{"read Downloads", tools.ReadFile, map[string]any{"path": "~/Downloads/report.csv"}, guard.Deny, true},
			}
			for _, c := range calls {
				t.Run(c.name, func(t *testing.T) {
					var first tools.Result
					var firstRun confined
					for i, rt := range routes {
						res := rt.call(t, c.tool, c.args)
						run := e.conf.last()
						if res.Session != s.id || res.Decision != c.verdict || (c.verdict == guard.Deny && res.Eligible != c.eligible) {
							t.Fatalf("%s: session %s decision %s eligible %v (%s); want %s %s eligible %v",
								rt.name, res.Session, res.Decision, res.Eligible, res.Reason, s.id, c.verdict, c.eligible)
						}
						res.PendingID, res.Retry = "", "" // the socket routes do not wait; in process neither
						if i == 0 {
							first, firstRun = res, run
							continue
						}
						if !sameResult(first, res) {
							t.Errorf("%s answered %+v, %s %+v", rt.name, res, routes[0].name, first)
						}
						if c.tool == tools.ExecuteShellCommand && fmt.Sprint(run) != fmt.Sprint(firstRun) {
							t.Errorf("%s confined its command as %+v, %s as %+v", rt.name, run, routes[0].name, firstRun)
						}
					}
					if c.tool == tools.ExecuteShellCommand {
						wantOut := e.work + "\nm=\n"
						if s.token != "" {
							wantOut = e.work + "\nm=walk-env\n"
						}
						if first.Stdout == nil || *first.Stdout != wantOut || firstRun.Session != s.id {
							t.Errorf("command ran as %+v with output %v, want %q in session %s", firstRun, first.Stdout, wantOut, s.id)
						}
					}
				})
			}
			t.Run("the refused read is recorded, once for every route", func(t *testing.T) {
				recs, err := e.store.AuditRecords(grants.AuditFilter{Session: s.id, Kind: grants.KindRefuse})
				keys := slices.DeleteFunc(recs, func(r grants.Record) bool { return !strings.HasSuffix(r.Path, "/.ssh/id_rsa") })
				if err != nil || len(keys) != 1 {
					t.Fatalf("refuse records of the key %+v (%v), want one", keys, err)
				}
			})
			t.Run("approval raised for the session, grant serves every route", func(t *testing.T) {
				var req wire.Request
				for _, p := range e.srv.Engine().Pending() {
					if p.Session == s.id && strings.HasSuffix(p.Path, "/Downloads/report.csv") {
						req = p
					}
				}
				if req.ID == "" {
					t.Fatalf("no pending request of session %s for the Downloads read: %+v", s.id, e.srv.Engine().Pending())
				}
				if req.Count < len(routes) {
					t.Errorf("the request counted %d calls, want one per route (%d)", req.Count, len(routes))
				}
				if _, err := e.srv.Engine().Decide(req.ID, wire.Decision{Scope: "session"}); err != nil {
					t.Fatal(err)
				}
				for _, rt := range routes {
					res := rt.call(t, tools.ReadFile, map[string]any{"path": "~/Downloads/report.csv"})
					if res.Decision != guard.Allow || res.Content == nil || *res.Content != "id,value\n1,42\n" {
						t.Errorf("%s after the session grant: %+v", rt.name, res)
					}
				}
			})
		})
	}
}

// sameResult compares what a route answered, pointers by their values.
func sameResult(a, b tools.Result) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return bytes.Equal(ja, jb)
}

// TestToolRoutesRefuseIdentities: conflicting URL, header, body, env or
// agent-process identities are 409 on every route that can carry them;
// an empty or unknown session is refused; and none of them runs the
// command (its marker file is never created).
func TestToolRoutesRefuseIdentities(t *testing.T) {
	e := newWalkEnv(t)
	ctx := context.Background()
	a, err := apiclient.New(e.sock).Register(ctx, wire.SessionRequest{Agent: "claude", Cwd: e.work, Workspace: []string{e.work}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := apiclient.New(e.sock).Register(ctx, wire.SessionRequest{Agent: "claude", Cwd: e.work, Workspace: []string{e.work}})
	if err != nil {
		t.Fatal(err)
	}
	hookOnly := "client-sess-2"
	if _, err := apiclient.New(e.sock).Check(ctx, wire.CheckRequest{SessionID: hookOnly, Cwd: e.work, Op: guard.OpRead, Path: "main.go"}); err != nil {
		t.Fatal(err)
	}
	marker := e.work + "/marker"
	args, _ := json.Marshal(map[string]any{"command": "touch " + marker})
	tests := []struct {
		name string
		path string
		hdr  map[string]string
		body wire.ToolRequest
		want int
	}{
		{"header vs body", "/v1/tools/execute_shell_command", map[string]string{wire.HeaderSession: a.ID, wire.HeaderToken: a.Token},
			wire.ToolRequest{SessionID: b.ID}, 409},
		{"header vs env", "/v1/tools/execute_shell_command", map[string]string{wire.HeaderSession: a.ID, wire.HeaderToken: a.Token},
			wire.ToolRequest{EnvSession: b.ID}, 409},
		{"url vs header", "/s/" + a.ID + "/v1/tools/execute_shell_command", map[string]string{wire.HeaderSession: b.ID, wire.HeaderToken: a.Token},
			wire.ToolRequest{}, 409},
		{"url vs body", "/s/" + a.ID + "/v1/tools/execute_shell_command", map[string]string{wire.HeaderToken: a.Token},
			wire.ToolRequest{SessionID: b.ID}, 409},
		{"agent process vs header", "/v1/tools/execute_shell_command", map[string]string{wire.HeaderSession: a.ID, wire.HeaderToken: a.Token},
			wire.ToolRequest{AgentProcess: true}, 409},
		{"agent process vs url", "/s/" + a.ID + "/v1/tools/execute_shell_command", map[string]string{wire.HeaderToken: a.Token},
			wire.ToolRequest{AgentProcess: true}, 409},
		{"agent process agreeing with the body", "/v1/tools/execute_shell_command", nil,
			wire.ToolRequest{AgentProcess: true, SessionID: hookOnly, Args: json.RawMessage(`{"command": "true"}`)}, 200},
		{"no session", "/v1/tools/execute_shell_command", nil, wire.ToolRequest{}, 400},
		{"empty header", "/v1/tools/execute_shell_command", map[string]string{wire.HeaderSession: ""}, wire.ToolRequest{}, 400},
		{"unknown session", "/v1/tools/execute_shell_command", map[string]string{wire.HeaderSession: "nope"}, wire.ToolRequest{}, 404},
		{"unknown session url", "/s/nope/v1/tools/execute_shell_command", nil, wire.ToolRequest{}, 404},
		{"forged token", "/v1/tools/execute_shell_command", map[string]string{wire.HeaderSession: a.ID, wire.HeaderToken: b.Token},
			wire.ToolRequest{}, 403},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.body.Args == nil {
				tt.body.Args = args
			}
			if st, res := e.post(t, tt.path, tt.hdr, tt.body); st != tt.want {
				t.Fatalf("HTTP %d (%+v), want %d", st, res, tt.want)
			}
			assertNoMarker(t, marker)
		})
	}
	bridges := []struct {
		name   string
		caller *apiclient.Client
		agent  bool
		want   string
	}{
		{"bridge naming a session while its agent process has another", apiclient.ForSession(e.sock, a.ID, a.Token), true, "refusing to pick one"},
		{"bridge with an unknown session", apiclient.ForSession(e.sock, "nope", ""), false, "unknown session nope"},
		{"bridge with no session", apiclient.New(e.sock), false, "no session id"},
	}
	for _, bt := range bridges {
		t.Run(bt.name, func(t *testing.T) {
			cs := e.bridge(t, bt.caller, bt.agent)
			res, text := viaBridge(t, cs, tools.ExecuteShellCommand, map[string]any{"command": "touch " + marker})
			if res.Tool != "" || !strings.Contains(text, bt.want) || !strings.Contains(text, "not run") {
				t.Fatalf("bridge answered %+v %q, want a refusal with %s", res, text, bt.want)
			}
			assertNoMarker(t, marker)
		})
	}
	for _, id := range []string{"", "nope"} {
		t.Run("in process "+id, func(t *testing.T) {
			if _, err := e.srv.Engine().RunTool(ctx, id, tools.ExecuteShellCommand, args); err == nil {
				t.Fatalf("RunTool(%q) ran", id)
			}
			assertNoMarker(t, marker)
		})
	}
}

func assertNoMarker(t *testing.T, marker string) {
	t.Helper()
	if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the command ran: %s exists (%v)", marker, err)
	}
}

// TestToolBodyLimitAndAudit: the tool routes take a body of up to 4 MiB,
// so write_file can write more than the 64 KiB every other route takes;
// each call that ran is audited as a tool record naming the tool, the
// session and the path, never the content.
func TestToolBodyLimitAndAudit(t *testing.T) {
	e := newWalkEnv(t)
	s, err := apiclient.New(e.sock).Register(context.Background(), wire.SessionRequest{Agent: "claude", Cwd: e.work, Workspace: []string{e.work}})
	if err != nil {
		t.Fatal(err)
	}
	hdr := map[string]string{wire.HeaderSession: s.ID, wire.HeaderToken: s.Token}
	big := strings.Repeat("pathgrant-content ", (1<<20)/18)
	tests := []struct {
		name, path string
		body       any
		want       int
	}{
		{"1 MiB write_file", "/v1/tools/write_file", wire.ToolRequest{Args: mustJSON(map[string]any{"path": "big.txt", "content": big})}, 200},
		{"5 MiB write_file", "/v1/tools/write_file", wire.ToolRequest{Args: mustJSON(map[string]any{"path": "huge.txt", "content": strings.Repeat(big, 5)})}, 413},
		{"check over 64 KiB", "/v1/check", wire.CheckRequest{Command: "echo " + strings.Repeat("x", 70<<10)}, 413},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if st, _ := e.post(t, tt.path, hdr, tt.body); st != tt.want {
				t.Fatalf("HTTP %d, want %d", st, tt.want)
			}
		})
	}
	if data, err := os.ReadFile(e.work + "/big.txt"); err != nil || string(data) != big {
		t.Fatalf("big.txt: %d bytes, %v", len(data), err)
	}
	recs, err := e.store.AuditRecords(grants.AuditFilter{Session: s.ID, Kind: grants.KindTool})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 || recs[0].Tool != tools.WriteFile || recs[0].Path != e.work+"/big.txt" || recs[0].Op != guard.OpWrite {
		t.Fatalf("tool audit records %+v, want one write_file of big.txt", recs)
	}
	if data, _ := json.Marshal(recs); bytes.Contains(data, []byte("pathgrant-content")) {
		t.Fatalf("the audit record holds the file's content: %s", data)
	}
}

// TestToolArgsNamedTwice: a tool's argument given twice, in any case, is
// refused on the socket and in process alike, never read one way by the
// check and another by a reader comparing keys exactly. (encoding/json
// fills one field from "path" and "PATH" and keeps the last.)
func TestToolArgsNamedTwice(t *testing.T) {
	e := newWalkEnv(t)
	s, err := apiclient.New(e.sock).Register(context.Background(), wire.SessionRequest{Agent: "claude", Cwd: e.work, Workspace: []string{e.work}})
	if err != nil {
		t.Fatal(err)
	}
	hdr := map[string]string{wire.HeaderSession: s.ID, wire.HeaderToken: s.Token}
	for _, args := range []string{`{"path":"nothing-here.txt","PATH":"main.go"}`, `{"path":"nothing-here.txt","path":"main.go"}`} {
		t.Run(args, func(t *testing.T) {
			if st, res := e.post(t, "/v1/tools/read_file", hdr, wire.ToolRequest{Args: json.RawMessage(args)}); st != http.StatusBadRequest {
				t.Errorf("socket: HTTP %d (%+v), want 400", st, res)
			}
			var ee *engine.Error
			if res, err := e.srv.Engine().RunTool(context.Background(), s.ID, tools.ReadFile, json.RawMessage(args)); !errors.As(err, &ee) || ee.Code != engine.BadRequest {
				t.Errorf("in process: %+v %v, want a bad request", res, err)
			}
		})
	}
}

func mustJSON(v any) json.RawMessage {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return data
}

// TestHookGrantServesBridge: the other direction of one session across
// transports. A Downloads read a hook's check raised, approved for the
// session, serves the MCP bridge of the same agent process, which names
// no session at all; another session's bridge gets nothing from it.
func TestHookGrantServesBridge(t *testing.T) {
	e := newWalkEnv(t)
	ctx := context.Background()
	// Registered before any check marks the played agent process: from
	// under an agent only children of its session may be registered.
	other, err := apiclient.New(e.sock).Register(ctx, wire.SessionRequest{Agent: "claude", Cwd: e.work, Workspace: []string{e.work}})
	if err != nil {
		t.Fatal(err)
	}
	hook := apiclient.New(e.sock)
	ans, err := hook.Check(ctx, wire.CheckRequest{SessionID: "client-sess-2", Cwd: e.work, Agent: "claude", Tool: "Read",
		Op: guard.OpRead, Path: e.dl + "/report.csv"})
	if err != nil || ans.Decision != guard.Deny || ans.Pending == "" {
		t.Fatalf("the hook's check: %+v, %v; want a deny pending approval", ans, err)
	}
	cs := e.bridge(t, apiclient.New(e.sock), true)
	if res, text := viaBridge(t, cs, tools.ReadFile, map[string]any{"path": "~/Downloads/report.csv"}); res.Decision != guard.Deny {
		t.Fatalf("the bridge read before any approval: %+v %s", res, text)
	}
	if _, err := e.srv.Engine().Decide(ans.Pending, wire.Decision{Scope: "session"}); err != nil {
		t.Fatal(err)
	}
	res, text := viaBridge(t, cs, tools.ReadFile, map[string]any{"path": "~/Downloads/report.csv"})
	if res.Session != "client-sess-2" || res.Decision != guard.Allow || res.Content == nil || *res.Content != "id,value\n1,42\n" {
		t.Fatalf("the bridge after the hook's session grant: %+v %s", res, text)
	}
	raw, _ := json.Marshal(map[string]any{"path": "~/Downloads/report.csv"})
	if res, err := e.srv.Engine().RunTool(ctx, other.ID, tools.ReadFile, raw); err != nil || res.Decision != guard.Deny {
		t.Errorf("another session used the grant: %+v, %v", res, err)
	}
}
