package hooks_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"

	"pathgrant/apiclient"
	"pathgrant/appdirs"
	"pathgrant/grants"
	"pathgrant/guard"
	"pathgrant/hooks"
	"pathgrant/wire"
)

// The cross-provider contract: one table of scenarios, each run through
// every adapter and through the raw socket routes. Every way in must
// resolve the same session (and so the same working directory and
// policy), use the same grants, leave the same notification owner on an
// approval request, and reach the same decision.

// access is what a scenario's tool call does.
type access struct {
	kind  string // shell | read | write
	value string // the command, or the path
}

// identity is the session environment a hook runs with.
type identity struct {
	session, token string
}

// observation is everything that must agree across providers.
type observation struct {
	Conflict  bool
	Decision  string
	Session   string
	Cwd       string
	Workspace []string
	Op, Path  string
	Rule      string
	Eligible  bool
	Grants    []string
	Owner     string // the session an approval request was queued (and notified) for
}

type provider struct {
	name string
	// payload is the client's hook input for a tool call in cwd, by the
	// agent session clientID.
	payload func(a access, cwd, clientID string) string
}

func quoteArg(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func mustJSON(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(data)
}

var providers = []provider{
	{"claude", func(a access, cwd, id string) string {
		tool, input := map[string]string{"shell": "Bash", "read": "Read", "write": "Write"}[a.kind], map[string]any{}
		switch a.kind {
		case "shell":
			input["command"] = a.value
		case "read":
			input["file_path"] = a.value
		case "write":
			input["file_path"], input["content"] = a.value, "x\n"
		}
		return mustJSON(map[string]any{"session_id": id, "transcript_path": "/t.jsonl", "cwd": cwd, "permission_mode": "default",
			"hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": input, "tool_use_id": "toolu_1"})
	}},
	{"codex", func(a access, cwd, id string) string {
		tool, input := "Bash", map[string]any{}
		switch a.kind { // Codex has no read tool: a read is a shell command
		case "shell":
			input["command"] = a.value
		case "read":
			input["command"] = "cat -- " + quoteArg(a.value)
		case "write":
			tool, input["command"] = "apply_patch", "*** Begin Patch\n*** Add File: "+a.value+"\n+x\n*** End Patch\n"
		}
		return mustJSON(map[string]any{"session_id": id, "turn_id": "1", "cwd": cwd, "hook_event_name": "PreToolUse",
			"model": "gpt-5-codex", "permission_mode": "default", "tool_name": tool, "tool_input": input, "tool_use_id": "call_1"})
	}},
	{"gemini", func(a access, cwd, id string) string {
		tool, input := map[string]string{"shell": "run_shell_command", "read": "read_file", "write": "write_file"}[a.kind], map[string]any{}
		if a.kind == "shell" {
			input["command"] = a.value
		} else {
			input["file_path"], input["content"] = a.value, "x\n"
		}
		return mustJSON(map[string]any{"session_id": id, "transcript_path": "/t.json", "cwd": cwd, "hook_event_name": "BeforeTool",
			"timestamp": "2026-12-02T18:12:25.432Z", "tool_name": tool, "tool_input": input})
	}},
	{"cursor", func(a access, cwd, id string) string {
		in := map[string]any{"conversation_id": id, "generation_id": "g1", "workspace_roots": []string{cwd}}
		switch a.kind { // Cursor asks before shell commands and reads; a write is a shell redirect
		case "shell":
			in["hook_event_name"], in["command"], in["cwd"] = "beforeShellExecution", a.value, cwd
		case "read":
			in["hook_event_name"], in["file_path"], in["content"] = "beforeReadFile", a.value, ""
		case "write":
			in["hook_event_name"], in["command"], in["cwd"] = "beforeShellExecution", "echo x > "+quoteArg(a.value), cwd
		}
		return mustJSON(in)
	}},
	{"pi", func(a access, cwd, id string) string {
		input := map[string]any{}
		if a.kind == "shell" {
			input["command"] = a.value
		} else {
			input["path"], input["content"] = a.value, "x\n"
		}
		return mustJSON(map[string]any{"hook_event_name": "tool_call", "session_id": id, "cwd": cwd,
			"tool_name": map[string]string{"shell": "bash", "read": "read", "write": "write"}[a.kind], "tool_call_id": "c1", "input": input})
	}},
	{"opencode", func(a access, cwd, id string) string {
		args := map[string]any{}
		if a.kind == "shell" {
			args["command"] = a.value
		} else {
			args["filePath"], args["content"] = a.value, "x\n"
		}
		return mustJSON(map[string]any{"hook_event_name": "tool.execute.before", "session_id": id, "opencode_session_id": "ses_1",
			"cwd": cwd, "worktree": cwd, "tool_name": map[string]string{"shell": "bash", "read": "read", "write": "write"}[a.kind],
			"call_id": "call_1", "args": args, "mcp_servers": map[string]any{}})
	}},
}

func TestCrossProviderContract(t *testing.T) {
	d := newDaemon(t)
	ctx := context.Background()
	if err := os.Symlink(d.home+"/.ssh", d.work+"/keys"); err != nil {
		t.Fatal(err)
	}
	writeFile(t, d.work+"/sub/x", "x")

	parent := d.register(wire.SessionRequest{Agent: "runner"})
	pc := apiclient.New(d.sock)
	pc.Token = parent.Token
	child, err := pc.Register(ctx, wire.SessionRequest{Agent: "runner", Parent: parent.ID, Cwd: d.work + "/sub", Workspace: []string{d.work + "/sub"}})
	if err != nil {
		t.Fatalf("register child: %v", err)
	}
	other := d.register(wire.SessionRequest{Agent: "other"})
	tokens := map[string]string{parent.ID: parent.Token, child.ID: child.Token, other.ID: other.Token}
	// The agent client session "bound-elsewhere" belongs to the other session.
	bind := wire.Client{Socket: d.sock, Token: other.Token}
	if err := bind.Do(ctx, "POST", wire.PathCheck, wire.CheckRequest{ClientSession: "bound-elsewhere",
		EnvSession: other.ID, Op: "read", Path: d.work + "/main.go"}, nil); err != nil {
		t.Fatalf("bind the client session: %v", err)
	}

	report, summary := d.dl+"/report.csv", d.dl+"/summary.txt"
	scenarios := []struct {
		name     string
		id       identity
		clientID string // fixed agent client session id; empty: one per provider
		body     string // a conflicting session_id in the raw routes' body
		setup    func()
		a        access
		cwd      string
		want     observation
	}{
		{name: "original incident: Downloads read through the shell", id: identity{parent.ID, parent.Token},
			a: access{"shell", "cat ~/Downloads/report.csv | wc -l"}, cwd: d.work,
			want: observation{Decision: "deny", Session: parent.ID, Op: "read", Path: report, Rule: "outside_policy", Eligible: true, Owner: parent.ID}},
		{name: "Read tool call served by the session's grant", id: identity{parent.ID, parent.Token},
			setup: func() {
				if _, err := d.store.Put(grants.NewGrant{Scope: grants.ScopeSession, Op: guard.OpRead, Path: report,
					Kind: guard.KindFile, Session: parent.ID, Tool: "test"}); err != nil {
					t.Fatalf("grant: %v", err)
				}
			},
			a: access{"read", report}, cwd: d.work,
			want: observation{Decision: "allow", Session: parent.ID, Op: "read", Path: report, Rule: "grant", Grants: []string{"*"}}},
		{name: "write to Downloads is never offered", id: identity{parent.ID, parent.Token},
			a: access{"write", summary}, cwd: d.work,
			want: observation{Decision: "deny", Session: parent.ID, Op: "write", Path: summary, Rule: "outside_policy"}},
		{name: "symlink escape out of the workspace", id: identity{parent.ID, parent.Token},
			a: access{"read", d.work + "/keys/id_ed25519"}, cwd: d.work,
			want: observation{Decision: "deny", Session: parent.ID, Op: "read", Path: d.home + "/.ssh/id_ed25519", Rule: "outside_policy"}},
		{name: "conflicting session ids", id: identity{parent.ID, parent.Token}, clientID: "bound-elsewhere", body: other.ID,
			a: access{"read", d.work + "/main.go"}, cwd: d.work,
			want: observation{Conflict: true, Decision: "deny"}},
		{name: "child session holds only its own grants", id: identity{child.ID, child.Token},
			a: access{"read", report}, cwd: d.work + "/sub",
			want: observation{Decision: "deny", Session: child.ID, Op: "read", Path: report, Rule: "outside_policy", Eligible: true, Owner: child.ID}},
	}

	observe := func(t *testing.T, ans *wire.Answer, conflict bool) observation {
		t.Helper()
		if conflict {
			return observation{Conflict: true, Decision: "deny"}
		}
		o := observation{Decision: string(ans.Decision), Session: ans.Session, Op: string(ans.Op), Path: ans.Path,
			Rule: string(ans.Rule), Eligible: ans.Eligible, Grants: ans.Grants}
		c := apiclient.New(d.sock)
		c.Session, c.Token = ans.Session, tokens[ans.Session]
		pol, err := c.Policy(ctx)
		if err != nil {
			t.Fatalf("policy of %s: %v", ans.Session, err)
		}
		o.Cwd, o.Workspace = pol.Cwd, pol.Workspace
		if ans.Pending != "" {
			// Read as the person, in process: over the socket this
			// process is the agent that sent the check.
			for _, req := range d.srv.Engine().Pending() {
				if req.ID == ans.Pending {
					o.Owner = req.Session
				}
			}
			if o.Owner == "" {
				t.Fatalf("approval request %s is not pending", ans.Pending)
			}
		}
		return o
	}

	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			if sc.setup != nil {
				sc.setup()
			}
			results := map[string]observation{}
			for _, p := range providers {
				clientID := sc.clientID
				if clientID == "" {
					clientID = p.name + ": " + sc.name
				}
				env := map[string]string{appdirs.SessionEnv: sc.id.session, appdirs.TokenEnv: sc.id.token, appdirs.WaitEnv: "0"}
				res := hooks.Run(ctx, hooks.Options{Client: p.name, Stdin: strings.NewReader(p.payload(sc.a, sc.cwd, clientID)),
					Getenv: func(k string) string { return env[k] }, Socket: d.sock})
				if res.Exit != 0 {
					t.Fatalf("%s: exit %d: %s", p.name, res.Exit, res.Stderr)
				}
				var de *wire.DaemonError
				conflict := errors.As(res.Err, &de) && de.Status == http.StatusConflict
				if res.Err != nil && !conflict {
					t.Fatalf("%s: %v", p.name, res.Err)
				}
				if conflict && !strings.Contains(res.Verdict.Reason, "session conflict") {
					t.Errorf("%s: conflict denied with %q", p.name, res.Verdict.Reason)
				}
				if res.Verdict.Allow != (sc.want.Decision == "allow") {
					t.Errorf("%s: verdict %+v, want %s", p.name, res.Verdict, sc.want.Decision)
				}
				var ans *wire.Answer
				if len(res.Answers) > 0 {
					ans = toIPC(res.Answers[len(res.Answers)-1])
				}
				results[p.name] = observe(t, ans, conflict)
			}
			for _, route := range []string{"/v1/check", "/s/{session}/v1/check"} {
				req := wire.CheckRequest{SessionID: sc.body, Cwd: sc.cwd}
				switch sc.a.kind {
				case "shell":
					req.Command = sc.a.value
				default:
					req.Op, req.Path = guard.Op(sc.a.kind), sc.a.value
				}
				ans, status := rawCheck(t, d.sock, route, sc.id, req)
				results["route "+route] = observe(t, ans, status == http.StatusConflict)
			}
			want := sc.want
			if !want.Conflict {
				pol := results["route /v1/check"]
				want.Cwd, want.Workspace = pol.Cwd, pol.Workspace
				if want.Session == child.ID && (want.Cwd != d.work+"/sub" || !slices.Equal(want.Workspace, []string{d.work + "/sub"})) {
					t.Errorf("child session policy cwd %s workspace %v", want.Cwd, want.Workspace)
				}
			}
			var firstGrants []string
			for name, got := range results {
				if slices.Equal(want.Grants, []string{"*"}) {
					if len(got.Grants) != 1 {
						t.Errorf("%s: grants %v, want the session's one grant", name, got.Grants)
					}
					if firstGrants == nil {
						firstGrants = got.Grants
					}
					if !slices.Equal(got.Grants, firstGrants) {
						t.Errorf("%s: grants %v, others used %v", name, got.Grants, firstGrants)
					}
					got.Grants = want.Grants
				}
				if !equalObservation(got, want) {
					t.Errorf("%s:\n got %+v\nwant %+v", name, got, want)
				}
			}
		})
	}
	// Every provider's eligible read in the parent session is one approval
	// request (coalesced), owned by the parent; the child's is its own.
	owners := map[string]int{}
	for _, r := range d.srv.Engine().Pending() {
		owners[r.Session]++
	}
	if owners[parent.ID] != 1 || owners[child.ID] != 1 || len(owners) != 2 {
		t.Errorf("pending requests by owner: %v (parent %s, child %s)", owners, parent.ID, child.ID)
	}
}

func equalObservation(a, b observation) bool {
	return a.Conflict == b.Conflict && a.Decision == b.Decision && a.Session == b.Session && a.Cwd == b.Cwd &&
		slices.Equal(a.Workspace, b.Workspace) && a.Op == b.Op && a.Path == b.Path && a.Rule == b.Rule &&
		a.Eligible == b.Eligible && slices.Equal(a.Grants, b.Grants) && a.Owner == b.Owner
}

func toIPC(a wire.Answer) *wire.Answer {
	var out wire.Answer
	data, _ := json.Marshal(a)
	if err := json.Unmarshal(data, &out); err != nil {
		panic(err)
	}
	return &out
}

// rawCheck is a tool runner calling the daemon itself: the session in the
// X-Session-ID header (route /v1/check) or in the URL (/s/{session}/...),
// the token in X-Session-Token.
func rawCheck(t *testing.T, sock, route string, id identity, req wire.CheckRequest) (*wire.Answer, int) {
	t.Helper()
	client := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var dd net.Dialer
		return dd.DialContext(ctx, "unix", sock)
	}}}
	defer client.CloseIdleConnections()
	path := strings.Replace(route, "{session}", id.session, 1)
	body, _ := json.Marshal(req)
	hr, _ := http.NewRequest(http.MethodPost, "http://pathgrant"+path, bytes.NewReader(body))
	if route == "/v1/check" {
		hr.Header.Set("X-Session-ID", id.session)
	}
	hr.Header.Set("X-Session-Token", id.token)
	resp, err := client.Do(hr)
	if err != nil {
		t.Fatalf("%s: %v", route, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		var e wire.Error
		_ = json.NewDecoder(resp.Body).Decode(&e)
		if resp.StatusCode != http.StatusConflict {
			t.Fatalf("%s: HTTP %d: %s", route, resp.StatusCode, e.Error)
		}
		return nil, resp.StatusCode
	}
	var ans wire.Answer
	if err := json.NewDecoder(resp.Body).Decode(&ans); err != nil {
		t.Fatalf("%s: %v", route, err)
	}
	return &ans, resp.StatusCode
}
