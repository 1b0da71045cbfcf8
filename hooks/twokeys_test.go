package hooks

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"pathgrant/tools"
)

// toolInputs build each client's hook input for a call of its tool with
// the tool input in (JSON), in the cwd /w. Cursor's model names no tool
// input; its file reads carry attachments, which in lists.
var toolInputs = map[string]func(tool, in string) string{
	"claude": claudeHookInput, "codex": claudeHookInput, "qwen": claudeHookInput, "droid": claudeHookInput,
	"gemini": func(tool, in string) string {
		return fmt.Sprintf(`{"hook_event_name":"BeforeTool","session_id":"s","cwd":"/w","tool_name":%q,"tool_input":%s}`, tool, in)
	},
	"pi": func(tool, in string) string {
		return fmt.Sprintf(`{"hook_event_name":"tool_call","session_id":"s","cwd":"/w","tool_name":%q,"input":%s}`, tool, in)
	},
	"copilot": func(tool, in string) string {
		return fmt.Sprintf(`{"sessionId":"s","cwd":"/w","toolName":%q,"toolArgs":%s}`, tool, in)
	},
	"cline": func(tool, in string) string {
		return fmt.Sprintf(`{"hookName":"tool_call","taskId":"t","workspaceRoots":["/w"],"workspaceInfo":{"rootPath":"/w"},"tool_call":{"id":"c","name":%q,"input":%s}}`, tool, in)
	},
	"opencode": func(tool, in string) string {
		return fmt.Sprintf(`{"hook_event_name":"tool.execute.before","session_id":"opencode-1","cwd":"/w","tool_name":%q,"call_id":"c","args":%s,"mcp_servers":null}`, tool, in)
	},
	"cursor": func(_, in string) string {
		return fmt.Sprintf(`{"hook_event_name":"beforeReadFile","conversation_id":"c","workspace_roots":["/w"],"file_path":"/w/a","attachments":[%s]}`, in)
	},
}

func claudeHookInput(tool, in string) string {
	return fmt.Sprintf(`{"hook_event_name":"PreToolUse","session_id":"s","cwd":"/w","tool_name":%q,"tool_input":%s}`, tool, in)
}

// onePathKey are the clients each of whose tools reads its path from the
// one key its schema names, every other key dropped before the tool
// runs, so that no input names one path under two keys the client reads:
// OpenCode 1.18.33 (filePath; path for glob and grep), whose walk has no
// two-path-key case (TestKeyTheClientReads holds the key it reads).
var onePathKey = map[string]bool{"opencode": true}

// TestTwoKeysRefused runs every client of the client table through the
// real hook with a tool input naming one path (or one shell command, or
// one patch) under two keys: each is refused, a block in the client's own
// terms with a reason naming the keys, before any daemon is asked (so
// nothing a person could approve). Each row's twin, the same input with
// only the key the client reads, is checked on that key's value.
func TestTwoKeysRefused(t *testing.T) {
	const patch = `*** Begin Patch\n*** Add File: /d/p\n+x\n*** End Patch`
	const patch2 = `*** Begin Patch\n*** Add File: /w/q\n+x\n*** End Patch`
	tests := []struct {
		client, tool string
		command      bool   // a command (or patch) under two keys, else a path
		two, one     string // the tool input with two keys, and its twin with the key the client reads
		want         string // an access of the twin: its path, or a part of its command
	}{
		{"claude", "Read", false, `{"file_path":"/w/a","notebook_path":"/d/b"}`, `{"file_path":"/w/a"}`, "/w/a"},
		{"claude", "NotebookEdit", false, `{"file_path":"/w/a","notebook_path":"/d/b","new_source":"x"}`, `{"notebook_path":"/d/b","new_source":"x"}`, "/d/b"},
		{"claude", "Write", false, `{"file_path":"/w/a","path":"/d/b","content":"x"}`, `{"file_path":"/w/a","content":"x"}`, "/w/a"},
		{"claude", "Grep", false, `{"pattern":"x","path":"/w","file_path":"/d"}`, `{"pattern":"x","path":"/w"}`, "'/w'"},
		{"claude", "Bash", true, `{"command":"ls","cmd":"cat /d/k"}`, `{"command":"ls"}`, "ls"},
		{"codex", "Read", false, `{"file_path":"/w/a","notebook_path":"/d/b"}`, `{"file_path":"/w/a"}`, "/w/a"},
		{"codex", "Bash", true, `{"command":"ls","commands":["cat /d/k"]}`, `{"command":"ls"}`, "ls"},
		{"codex", "apply_patch", true, `{"command":"` + patch2 + `","patch":"` + patch + `"}`, `{"command":"` + patch2 + `"}`, "/w/q"},
		{"codex", "apply_patch", true, `{"command":"` + patch2 + `","changes":{"/d/p":{}}}`, `{"changes":{"/d/p":{}}}`, "/d/p"},
		{"gemini", "read_file", false, `{"file_path":"/w/a","absolute_path":"/d/b"}`, `{"file_path":"/w/a"}`, "/w/a"},
		{"gemini", "write_file", false, `{"file_path":"/w/a","path":"/d/b","content":"x"}`, `{"file_path":"/w/a","content":"x"}`, "/w/a"},
		{"gemini", "list_directory", false, `{"dir_path":"/w","path":"/d"}`, `{"dir_path":"/w"}`, "/w"},
		{"gemini", "run_shell_command", false, `{"command":"ls","dir_path":"/w","directory":"/d"}`, `{"command":"ls","dir_path":"/w"}`, "'/w'"},
		{"gemini", "run_shell_command", true, `{"command":"ls","cmd":"cat /d/k"}`, `{"command":"ls"}`, "ls"},
		{"qwen", "notebook_edit", false, `{"file_path":"/w/a","notebook_path":"/d/b"}`, `{"notebook_path":"/d/b"}`, "/d/b"},
		{"qwen", "read_file", false, `{"file_path":"/w/a","absolute_path":"/d/b"}`, `{"file_path":"/w/a"}`, "/w/a"},
		{"qwen", "edit", false, `{"file_path":"/w/a","notebook_path":"/d/b"}`, `{"file_path":"/w/a"}`, "/w/a"},
		{"qwen", "run_shell_command", false, `{"command":"ls","directory":"/w","dir_path":"/d"}`, `{"command":"ls","directory":"/w"}`, "'/w'"},
		{"qwen", "run_shell_command", true, `{"command":"ls","cmd":"cat /d/k"}`, `{"command":"ls"}`, "ls"},
		{"droid", "Read", false, `{"file_path":"/w/a","path":"/d/b"}`, `{"file_path":"/w/a"}`, "/w/a"},
		{"droid", "LS", false, `{"directory_path":"/w","path":"/d"}`, `{"directory_path":"/w"}`, "/w"},
		{"droid", "Glob", false, `{"patterns":["*"],"folder":"/w","path":"/d"}`, `{"patterns":["*"],"folder":"/w"}`, "'/w'"},
		{"droid", "Execute", true, `{"command":"ls","cmd":"cat /d/k"}`, `{"command":"ls"}`, "ls"},
		{"droid", "ApplyPatch", true, `{"input":"` + patch2 + `","patch":"` + patch + `"}`, `{"input":"` + patch2 + `"}`, "/w/q"},
		{"copilot", "view", false, `{"path":"/w/a","paths":["/d/b"]}`, `{"path":"/w/a"}`, "/w/a"},
		{"copilot", "grep", false, `{"pattern":"x","paths":["/w"],"path":"/d"}`, `{"pattern":"x","paths":["/w"]}`, "'/w'"},
		{"copilot", "bash", true, `{"command":"ls","cmd":"cat /d/k"}`, `{"command":"ls"}`, "ls"},
		{"pi", "read", false, `{"path":"/w/a","file_path":"/d/b"}`, `{"path":"/w/a"}`, "/w/a"},
		{"pi", "write", false, `{"path":"/w/a","file_path":"/d/b","content":"x"}`, `{"path":"/w/a","content":"x"}`, "/w/a"},
		{"pi", "bash", true, `{"command":"ls","cmd":"cat /d/k"}`, `{"command":"ls"}`, "ls"},
		{"cline", "read_files", false, `{"files":["/w/a"],"paths":["/d/b"]}`, `{"files":["/w/a"]}`, "/w/a"},
		{"cline", "read_files", false, `[{"path":"/w/a","file_path":"/d/b"}]`, `[{"path":"/w/a"}]`, "/w/a"},
		{"cline", "editor", false, `{"path":"/w/a","file_path":"/d/b","new_text":"x"}`, `{"path":"/w/a","new_text":"x"}`, "/w/a"},
		{"cline", "run_commands", true, `{"command":"ls","cmd":"cat /d/k"}`, `{"command":"ls"}`, "ls"},
		{"cursor", "beforeReadFile", false, `{"file_path":"/w/b","filePath":"/d/b"}`, `{"file_path":"/w/b"}`, "/w/b"},
		{"opencode", "bash", true, `{"command":"ls","cmd":"cat /d/k"}`, `{"command":"ls"}`, "ls"},
		{"opencode", "bash", true, `{"command":"ls","commands":["cat /d/k"],"workdir":"/w"}`, `{"command":"ls","workdir":"/w"}`, "ls"},
	}
	t.Run("every client is walked", func(t *testing.T) {
		for _, name := range Clients() {
			c, _ := LookupClient(name)
			var path, command bool
			for _, tt := range tests {
				path = path || tt.client == name && !tt.command
				command = command || tt.client == name && tt.command
			}
			if _, ok := toolInputs[name]; !ok || !path && !onePathKey[name] || !command && !c.NoOwnTools {
				t.Errorf("%s: input builder %v, a case of two path keys %v, of two command keys %v", name, ok, path, command)
			}
		}
	})
	for _, tt := range tests {
		what := "path"
		if tt.command {
			what = "command"
		}
		t.Run(tt.client+"/"+tt.tool+" "+what+" "+tt.two, func(t *testing.T) {
			client, _ := LookupClient(tt.client)
			input := toolInputs[tt.client]
			res := Run(context.Background(), Options{Client: tt.client, Stdin: strings.NewReader(input(tt.tool, tt.two)),
				Getenv: func(string) string { return "" }, Socket: filepath.Join(t.TempDir(), "none.sock")})
			out := res.Stderr
			if _, ok := client.adapter.(blocker); ok {
				out = string(res.Stdout)
			}
			switch {
			case !errors.Is(res.Err, errTwoKeys):
				t.Fatalf("error %v, want %v (stdout %q stderr %q)", res.Err, errTwoKeys, res.Stdout, res.Stderr)
			case len(res.Answers) != 0 || res.Verdict.Allow:
				t.Fatalf("asked the daemon or allowed: %+v %+v", res.Answers, res.Verdict)
			case !strings.Contains(out, "under two keys") || !strings.Contains(out, client.Title):
				t.Fatalf("reason %q does not say why", out)
			}
			if _, ok := client.adapter.(blocker); !ok && res.Exit != 2 {
				t.Fatalf("exit %d, want 2: the block every client honours", res.Exit)
			}
			c, err := client.adapter.parse([]byte(input(tt.tool, tt.one)))
			if err != nil || len(c.Accesses) == 0 {
				t.Fatalf("twin: %v, %+v", err, c)
			}
			if !slices.ContainsFunc(c.Accesses, func(a Access) bool { return a.Path == tt.want || strings.Contains(a.Command, tt.want) }) {
				t.Fatalf("twin checked %+v, want %q", c.Accesses, tt.want)
			}
		})
	}
}

// TestKeyTheClientReads: a path named only under a key the tool does not
// read is not checked as the tool's path: the call is refused as missing
// its path (Claude Code's and Qwen Code's notebook tools read
// notebook_path, Pi's tools path, OpenCode's file tools filePath).
func TestKeyTheClientReads(t *testing.T) {
	tests := []struct{ client, tool, in string }{
		{"claude", "NotebookEdit", `{"file_path":"/w/a.ipynb","new_source":"x"}`},
		{"claude", "Read", `{"notebook_path":"/w/a.ipynb"}`},
		{"qwen", "notebook_edit", `{"file_path":"/w/a.ipynb"}`},
		{"pi", "read", `{"file_path":"/w/a"}`},
		{"opencode", "read", `{"path":"/w/a"}`},
		{"opencode", "write", `{"file_path":"/w/a","content":"x"}`},
	}
	for _, tt := range tests {
		t.Run(tt.client+"/"+tt.tool, func(t *testing.T) {
			_, err := adapterOf(t, tt.client).parse([]byte(toolInputs[tt.client](tt.tool, tt.in)))
			if !errors.Is(err, errMalformed) || !strings.Contains(err.Error(), "missing") {
				t.Fatalf("error %v, want the tool's own key missing", err)
			}
		})
	}
}

// TestBridgeToolsAreTheBridge: the names the hooks take for the bridge's
// tools are the tools pathgrant serves, and each client's form of them
// splits one way only, but Gemini CLI's (whose hook names the server
// apart instead).
func TestBridgeToolsAreTheBridge(t *testing.T) {
	if !slices.Equal(bridgeTools, tools.Names) {
		t.Fatalf("bridgeTools %q, tools.Names %q", bridgeTools, tools.Names)
	}
	for _, tc := range []struct {
		n      mcpName
		oneWay bool
	}{{claudeMCP, true}, {droidMCP, true}, {clineMCP, true}, {copilotMCP, true}, {geminiMCP, false}} {
		if got := tc.n.splitsOneWay(); got != tc.oneWay {
			t.Errorf("%+v: splits one way %v, want %v", tc.n, got, tc.oneWay)
		}
	}
}
