package mcp_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"pathgrant/apiclient"
	"pathgrant/guard"
	"pathgrant/ipc"
	"pathgrant/ipc/ipctest"
	"pathgrant/mcp"
	"pathgrant/wire"
)

// env is a real daemon with a registered session, and an MCP client
// connected in process to a bridge for that session.
type env struct {
	home, work, downloads string
	srv                   *ipc.Server
	session               wire.SessionResponse
	cs                    *sdk.ClientSession
}

func newEnv(t *testing.T) *env {
	t.Helper()
	dir, err := os.MkdirTemp("", "pg-mcp")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	e := &env{home: root + "/home"}
	e.work, e.downloads = e.home+"/work", e.home+"/Downloads"
	writeFile(t, e.work+"/main.go", "package main\n")
	writeFile(t, e.downloads+"/report.csv", "a,b\n1,2\n")
	writeFile(t, e.home+"/.ssh/id_ed25519", "SECRET\n")
	e.srv = ipc.New(ipc.Config{HooksBelow: true, Store: ipctest.OpenStore(t, root+"/store.db"), Home: e.home, Logger: ipctest.Quiet,
		Device: guard.DevicePolicy{EligibleReadOnly: []string{e.downloads}}})
	sock := root + "/d.sock"
	ipctest.Serve(t, e.srv, sock)
	ctx := context.Background()
	e.session, err = apiclient.New(sock).Register(ctx, wire.SessionRequest{Agent: "claude", Cwd: e.work, Workspace: []string{e.work}})
	if err != nil {
		t.Fatal(err)
	}
	caller := apiclient.ForSession(sock, e.session.ID, e.session.Token)
	t.Cleanup(caller.CloseIdle)
	e.cs = connect(t, mcp.Options{Caller: caller, Logger: ipctest.Quiet})
	return e
}

// connect runs a bridge on one end of an in-memory pipe and returns the
// SDK client session on the other.
func connect(t *testing.T, o mcp.Options) *sdk.ClientSession {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	st, ct := sdk.NewInMemoryTransports()
	ss, err := mcp.NewServer(o).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
		cancel()
	})
	return cs
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (e *env) call(t *testing.T, tool string, args map[string]any) (*sdk.CallToolResult, string, map[string]any) {
	t.Helper()
	res, err := e.cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	var text strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	var structured map[string]any
	if res.StructuredContent != nil {
		data, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(data, &structured)
	}
	return res, text.String(), structured
}

func TestListsTheFourTools(t *testing.T) {
	e := newEnv(t)
	list, err := e.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range list.Tools {
		names = append(names, tl.Name)
		if schema, _ := json.Marshal(tl.InputSchema); !strings.Contains(string(schema), `"required"`) {
			t.Errorf("%s: schema %s has no required arguments", tl.Name, schema)
		}
	}
	slices.Sort(names)
	if want := []string{"execute_shell_command", "list_directory", "read_file", "write_file"}; !slices.Equal(names, want) {
		t.Errorf("tools %v, want %v", names, want)
	}
}

func TestBridgeCalls(t *testing.T) {
	e := newEnv(t)
	tests := []struct {
		name    string
		tool    string
		args    map[string]any
		isError bool
		text    []string // the text holds each
	}{
		{"read in the workspace", "read_file", map[string]any{"path": "main.go"}, false, []string{"package main"}},
		{"list the workspace", "list_directory", map[string]any{"path": e.work}, false, []string{"file\tmain.go\t13"}},
		{"write in the workspace", "write_file", map[string]any{"path": "out.txt", "content": "hi"}, false, []string{"wrote 2 bytes"}},
		{"ssh key is never offered", "read_file", map[string]any{"path": "~/.ssh/id_ed25519"}, true, []string{"pathgrant denied read_file", "outside the workspace"}},
		{"write outside is never offered", "write_file", map[string]any{"path": e.home + "/x", "content": "x"}, true, []string{"never offered"}},
		{"unknown argument", "read_file", map[string]any{"path": "main.go", "sudo": true}, true, []string{"not run"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, text, structured := e.call(t, tt.tool, tt.args)
			if res.IsError != tt.isError {
				t.Fatalf("isError %v, text %q", res.IsError, text)
			}
			for _, want := range tt.text {
				if !strings.Contains(text, want) {
					t.Errorf("text %q lacks %q", text, want)
				}
			}
			if strings.Contains(text, "SECRET") {
				t.Errorf("secret leaked: %q", text)
			}
			if structured != nil && structured["session"] != e.session.ID {
				t.Errorf("acted for session %v, want %s", structured["session"], e.session.ID)
			}
		})
	}
	if data, err := os.ReadFile(e.work + "/out.txt"); err != nil || string(data) != "hi" {
		t.Errorf("written file %q %v", data, err)
	}
}

// TestDownloadsThroughTheBridge is the incident's case: a read under
// Downloads is denied with a pending approval in the bridge's own
// session; once the user approves that request for the session, the
// retried call reads the file. Nothing ran in between.
func TestDownloadsThroughTheBridge(t *testing.T) {
	e := newEnv(t)
	report := e.downloads + "/report.csv"
	res, text, structured := e.call(t, "read_file", map[string]any{"path": "~/Downloads/report.csv"})
	pending, _ := structured["pending_id"].(string)
	if !res.IsError || pending == "" || !strings.Contains(text, "call the tool again once they have") || !strings.Contains(text, pending) {
		t.Fatalf("first call: isError %v, text %q, structured %v", res.IsError, text, structured)
	}
	if structured["session"] != e.session.ID || structured["eligible"] != true {
		t.Errorf("denial %v, want eligible in session %s", structured, e.session.ID)
	}
	reqs := e.srv.Engine().Pending()
	if len(reqs) != 1 || reqs[0].ID != pending || reqs[0].Session != e.session.ID || reqs[0].Path != report {
		t.Fatalf("pending requests %+v, want one for %s in session %s", reqs, report, e.session.ID)
	}
	if _, err := e.srv.Engine().Decide(pending, wire.Decision{Scope: "session", Kind: guard.KindFile}); err != nil {
		t.Fatal(err)
	}
	res, text, _ = e.call(t, "read_file", map[string]any{"path": "~/Downloads/report.csv"})
	if res.IsError || text != "a,b\n1,2\n" {
		t.Fatalf("after approval: isError %v, text %q", res.IsError, text)
	}
}

// TestBridgeFailsClosed: no daemon, or a session the daemon does not
// know, runs nothing.
func TestBridgeFailsClosed(t *testing.T) {
	e := newEnv(t)
	tests := []struct {
		name   string
		caller *apiclient.Client
	}{
		{"no daemon", apiclient.ForSession(filepath.Join(e.home, "none.sock"), e.session.ID, e.session.Token)},
		{"wrong token", apiclient.ForSession(filepath.Join(filepath.Dir(e.home), "d.sock"), e.session.ID, "forged")},
		{"no session", apiclient.New(filepath.Join(filepath.Dir(e.home), "d.sock"))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs := connect(t, mcp.Options{Caller: tt.caller, Logger: ipctest.Quiet})
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "write_file", Arguments: map[string]any{"path": "pwned", "content": "x"}})
			if err != nil {
				t.Fatal(err)
			}
			if !res.IsError {
				t.Errorf("not an error: %+v", res)
			}
			if _, err := os.Stat(e.work + "/pwned"); err == nil {
				t.Error("the call ran")
			}
		})
	}
}
