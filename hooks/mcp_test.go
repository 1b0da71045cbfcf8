package hooks_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"pathgrant/hooks"
)

// TestMCPTools: pathgrant's own MCP tools are let through (its bridge
// checks them) once the hook's check of the cwd bound the session, and
// denied when no daemon answers; another server's defer to the client's
// own permission flow unless the device policy says unknown_tools =
// "deny", and a policy file that cannot be read denies. Another server's
// tool never reaches the daemon.
func TestMCPTools(t *testing.T) {
	d := newDaemon(t)
	const (
		claudeOwn   = `{"hook_event_name":"PreToolUse","session_id":"s","cwd":"/w","tool_name":"mcp__pathgrant__execute_shell_command","tool_input":{"command":"cat ~/.ssh/id_rsa"}}`
		claudeOther = `{"hook_event_name":"PreToolUse","session_id":"s","cwd":"/w","tool_name":"mcp__fs__read","tool_input":{}}`
		codexOwn    = `{"hook_event_name":"PreToolUse","session_id":"s","cwd":"/w","tool_name":"mcp__pathgrant__read_file","tool_input":{"path":"a"}}`
		codexOther  = `{"hook_event_name":"PermissionRequest","session_id":"s","cwd":"/w","tool_name":"mcp__fs__read","tool_input":{}}`
		geminiOwn   = `{"hook_event_name":"BeforeTool","session_id":"s","cwd":"/w","tool_name":"mcp_pathgrant_read_file","tool_input":{"path":"a"},"mcp_context":{"server_name":"pathgrant","tool_name":"read_file","command":"/usr/bin/pathgrant","args":["mcp"]}}`
		geminiNoCtx = `{"hook_event_name":"BeforeTool","session_id":"s","cwd":"/w","tool_name":"mcp_pathgrant_read_file","tool_input":{"path":"a"}}`
		geminiOther = `{"hook_event_name":"BeforeTool","session_id":"s","cwd":"/w","tool_name":"mcp_fs_read","tool_input":{},"mcp_context":{"server_name":"fs","tool_name":"read"}}`
		cursorOwn   = `{"hook_event_name":"beforeMCPExecution","conversation_id":"c","workspace_roots":["/w"],"tool_name":"read_file","tool_input":"{}","command":"/usr/local/bin/pathgrant mcp"}`
		cursorFake  = `{"hook_event_name":"beforeMCPExecution","conversation_id":"c","workspace_roots":["/w"],"tool_name":"read_file","tool_input":"{}","command":"/tmp/pathgrant mcp --evil"}`
		cursorOther = `{"hook_event_name":"beforeMCPExecution","conversation_id":"c","workspace_roots":["/w"],"tool_name":"q","tool_input":"{}","url":"http://x"}`
	)
	tests := []struct {
		name, client, input, policy string // policy: "policy.toml=…" or "policy.json=…"
		want                        string // stdout, or a substring of it when wantSub
		wantSub                     bool
		daemon                      bool // the daemon answers (and the hook must ask it)
	}{
		{name: "claude own tool allowed", client: "claude", input: claudeOwn, want: `"permissionDecision":"allow"`, wantSub: true, daemon: true},
		{name: "claude own tool without a daemon", client: "claude", input: claudeOwn, want: "pathgrant is not running", wantSub: true},
		{name: "claude other server defers", client: "claude", input: claudeOther, want: "{}\n"},
		{name: "claude other server denied by policy", client: "claude", input: claudeOther,
			policy: "policy.toml=# mine\nunknown_tools = \"deny\" # no MCP\n", want: `"permissionDecision":"deny"`, wantSub: true},
		{name: "codex own tool: no objection", client: "codex", input: codexOwn, want: "", daemon: true},
		{name: "codex other server defers", client: "codex", input: codexOther, want: ""},
		{name: "codex other server denied by json policy", client: "codex", input: codexOther,
			policy: `policy.json={"unknown_tools": "deny"}`, want: `"behavior":"deny"`, wantSub: true},
		{name: "gemini own tool allowed", client: "gemini", input: geminiOwn, want: `{"decision":"allow"}` + "\n", daemon: true},
		{name: "gemini name alone is another server's", client: "gemini", input: geminiNoCtx, want: "{}\n"},
		{name: "gemini other server defers", client: "gemini", input: geminiOther, want: "{}\n"},
		{name: "gemini explicit ask-client", client: "gemini", input: geminiOther, policy: "policy.toml=unknown_tools = 'ask-client'\n", want: "{}\n"},
		{name: "cursor own bridge allowed", client: "cursor", input: cursorOwn, want: `{"permission":"allow"}` + "\n", daemon: true},
		{name: "cursor other command is not the bridge", client: "cursor", input: cursorFake, want: `"permission":"ask"`, wantSub: true},
		{name: "cursor remote server defers", client: "cursor", input: cursorOther, want: `"permission":"ask"`, wantSub: true},
		{name: "unreadable policy denies", client: "claude", input: claudeOther, policy: "policy.toml=unknown_tools = \"allow\"\n",
			want: `"permissionDecision":"deny"`, wantSub: true},
		{name: "policy with a table denies", client: "cursor", input: cursorOther, policy: "policy.toml=[mcp]\nunknown_tools = \"ask-client\"\n",
			want: `"permission":"deny"`, wantSub: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			if name, body, ok := strings.Cut(tt.policy, "="); ok {
				dir := filepath.Join(home, ".config", "pathgrant")
				if err := os.MkdirAll(dir, 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			env := map[string]string{"HOME": home}
			sock, input := filepath.Join(home, "no.sock"), tt.input
			if tt.daemon {
				sock, input = d.sock, strings.ReplaceAll(input, `"/w"`, `"`+d.work+`"`)
			}
			res := hooks.Run(context.Background(), hooks.Options{Client: tt.client, Stdin: strings.NewReader(input),
				Getenv: func(k string) string { return env[k] }, Socket: sock})
			got := string(res.Stdout)
			if res.Exit != 0 || (tt.wantSub && !strings.Contains(got, tt.want)) || (!tt.wantSub && got != tt.want) {
				t.Fatalf("stdout %q exit %d (stderr %q), want %q", got, res.Exit, res.Stderr, tt.want)
			}
			switch {
			case tt.daemon && (len(res.Answers) != 1 || res.Answers[0].Path != d.work):
				t.Fatalf("the hook did not bind the session with a check of the cwd: %+v", res.Answers)
			case !tt.daemon && len(res.Answers) != 0:
				t.Fatalf("asked the daemon: %+v", res.Answers)
			}
		})
	}
}

// TestUnknownToolsSetting reads the one key the hook needs from the
// device policy file as the daemon reads the whole file (devicepolicy), and
// refuses every file the daemon would refuse.
func TestUnknownToolsSetting(t *testing.T) {
	tests := []struct {
		name, file, body, want, err string
	}{
		{name: "no file", want: hooks.AskClient},
		{name: "toml without the key", file: "policy.toml", body: "confinement = true\n", want: hooks.AskClient},
		{name: "toml deny", file: "policy.toml", body: "  unknown_tools   =   \"deny\"\n", want: hooks.DenyTool},
		{name: "toml literal string with comment", file: "policy.toml", body: "unknown_tools = 'ask-client' # default\n", want: hooks.AskClient},
		{name: "key inside a list is not the key", file: "policy.toml", body: "caches = [\n \"/x\", # unknown_tools = \"deny\"\n]\n", want: hooks.AskClient},
		{name: "toml twice", file: "policy.toml", body: "unknown_tools = \"deny\"\nunknown_tools = \"deny\"\n", err: "twice"},
		{name: "toml bad value", file: "policy.toml", body: "unknown_tools = \"allow\"\n", err: "neither"},
		{name: "toml not a string", file: "policy.toml", body: "unknown_tools = true\n", err: "line 1 (last key \"unknown_tools\"): incompatible types"},
		{name: "toml junk after", file: "policy.toml", body: "unknown_tools = \"deny\" x\n", err: "line 1: expected a top-level item to end"},
		{name: "json deny", file: "policy.json", body: `{"unknown_tools": "deny", "confinement": true}`, want: hooks.DenyTool},
		{name: "json not a string", file: "policy.json", body: `{"unknown_tools": 1}`, err: "cannot unmarshal number into Go struct field Policy.unknown_tools"},
		{name: "a forbidden root elsewhere in the file", file: "policy.toml", body: "unknown_tools = \"ask-client\"\ntoolchains = [\"~/.ssh\"]\n", err: "line 2: toolchains"},
		{name: "an unknown field", file: "policy.toml", body: "unknown_tools = \"deny\"\nconfinment = false\n", err: `line 2: unknown field "confinment"`},
		{name: "a table", file: "policy.toml", body: "[x]\nunknown_tools = \"deny\"\n", err: "unknown field"},
		{name: "json malformed", file: "policy.json", body: `{`, err: "policy.json"},
		{name: "both files", file: "both", err: "both"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			dir := filepath.Join(home, "cfg", "pathgrant")
			if err := os.MkdirAll(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			files := map[string]string{tt.file: tt.body}
			if tt.file == "both" {
				files = map[string]string{"policy.toml": "", "policy.json": "{}"}
			}
			for name, body := range files {
				if name == "" {
					continue
				}
				if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			env := map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, "cfg")}
			got, err := hooks.UnknownTools(func(k string) string { return env[k] })
			switch {
			case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
				t.Fatalf("error %v, want one saying %q", err, tt.err)
			case tt.err == "" && (err != nil || got != tt.want):
				t.Fatalf("%q, %v; want %q", got, err, tt.want)
			}
		})
	}
}
