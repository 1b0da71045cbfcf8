package hooks

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// opencodeCall is the OpenCode plugin's payload for a call of tool with
// args (JSON) in the cwd /w, OpenCode's MCP settings being servers (JSON,
// null when OpenCode did not say).
func opencodeCall(tool, args, servers string) string {
	return fmt.Sprintf(`{"hook_event_name":"tool.execute.before","session_id":"opencode-1","opencode_session_id":"ses_1","cwd":"/w","worktree":"/w","tool_name":%q,"call_id":"call_1","args":%s,"mcp_servers":%s}`,
		tool, args, servers)
}

// opencodeServers is OpenCode's mcp settings with one server, mini.
const opencodeServers = `{"mini":{"type":"local","command":["node","/opt/mini/mcp.js"],"enabled":true}}`

// noSpacePatch is a patch (inside a JSON string) whose headers have no
// space after the colon, which OpenCode's patch parser accepts: each
// client's apply_patch must still name every file of it.
const noSpacePatch = `*** Begin Patch\n*** Add File:p\n+x\n*** Update File:q\n@@\n-a\n+b\n*** Move to:r\n*** Delete File:s\n*** End Patch`

var noSpaceWant = []Access{{Op: "write", Path: "/w/p"}, {Op: "write", Path: "/w/q"}, {Op: "write", Path: "/w/r"}, {Op: "delete", Path: "/w/s"}}

// TestMapping checks how each client's tool calls become accesses.
func TestMapping(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, client, input string
		want                []Access
		noFiles             bool
		err                 error
	}{
		{"claude bash runs in cwd", "claude", `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"Bash","tool_input":{"command":"cat x"}}`,
			[]Access{{Command: "cd -- '/w' && cat x"}}, false, nil},
		{"claude bash cwd quoted", "claude", `{"hook_event_name":"PreToolUse","cwd":"/w/it's","tool_name":"Bash","tool_input":{"command":"ls"}}`,
			[]Access{{Command: `cd -- '/w/it'\''s' && ls`}}, false, nil},
		{"claude read", "claude", `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"Read","tool_input":{"file_path":"/d/r.csv"}}`,
			[]Access{{Op: "read", Path: "/d/r.csv"}}, false, nil},
		{"claude relative read joins cwd without cleaning", "claude", `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"Read","tool_input":{"file_path":"link/../x"}}`,
			[]Access{{Op: "read", Path: "/w/link/../x"}}, false, nil},
		{"claude edit is a write", "claude", `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"Edit","tool_input":{"file_path":"/w/a","old_string":"a","new_string":"b"}}`,
			[]Access{{Op: "write", Path: "/w/a"}}, false, nil},
		{"claude multiedit is a write", "claude", `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"MultiEdit","tool_input":{"file_path":"/w/a","edits":[]}}`,
			[]Access{{Op: "write", Path: "/w/a"}}, false, nil},
		{"claude notebook edit", "claude", `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"NotebookEdit","tool_input":{"notebook_path":"/w/n.ipynb"}}`,
			[]Access{{Op: "write", Path: "/w/n.ipynb"}}, false, nil},
		{"claude glob is a recursive read of its root", "claude", `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"Glob","tool_input":{"pattern":"src/**/*.go"}}`,
			[]Access{{Command: "ls -R -- '/w/src'", Input: searchInput{kind: "glob", pattern: "src/**/*.go"}}}, false, nil},
		{"claude glob absolute pattern", "claude", `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"Glob","tool_input":{"pattern":"/h/Downloads/*.csv","path":"/w"}}`,
			[]Access{{Command: "ls -R -- '/h/Downloads'", Input: searchInput{kind: "glob", pattern: "/h/Downloads/*.csv", in: "/w"}}}, false, nil},
		{"claude glob escaping pattern", "claude", `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"Glob","tool_input":{"pattern":"../../etc/*"}}`,
			[]Access{{Command: "ls -R -- '/w/../../etc' '/etc'", Input: searchInput{kind: "glob", pattern: "../../etc/*"}}}, false, nil},
		{"claude grep without path searches cwd", "claude", `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"Grep","tool_input":{"pattern":"x"}}`,
			[]Access{{Command: "ls -R -- '/w'", Input: searchInput{kind: "pattern", pattern: "x"}}}, false, nil},
		{"claude grep with its filters", "claude", `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"Grep","tool_input":{"pattern":"TODO","path":"/h/Downloads","glob":"*.csv","type":"csv","output_mode":"content"}}`,
			[]Access{{Command: "ls -R -- '/h/Downloads'", Input: searchInput{kind: "pattern", pattern: "TODO", in: "/h/Downloads", filters: []string{`files "*.csv"`, `type "csv"`}}}}, false, nil},
		{"claude grep of one file reads it", "claude", `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"Grep","tool_input":{"pattern":"x","path":"` + file + `"}}`,
			[]Access{{Op: "read", Path: file, Input: searchInput{kind: "pattern", pattern: "x", in: file}}}, false, nil},
		{"claude todo touches no files", "claude", `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"TodoWrite","tool_input":{"todos":[]}}`,
			nil, true, nil},
		{"claude web fetch is made from Claude Code's own process", "claude", `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"WebFetch","tool_input":{"url":"u"}}`,
			nil, false, errUnknownTool},
		{"claude web search touches no local file", "claude", `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"WebSearch","tool_input":{"query":"q"}}`,
			nil, true, nil},
		{"claude sub-agent touches no local file", "claude", `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"Agent","tool_input":{"prompt":"p"}}`,
			nil, true, nil},
		{"claude sub-agent in a worktree makes files", "claude", `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"Agent","tool_input":{"prompt":"p","isolation":"worktree"}}`,
			nil, false, errUnknownTool},
		{"claude task in a worktree makes files", "claude", `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"Task","tool_input":{"prompt":"p","isolation":"worktree"}}`,
			nil, false, errUnknownTool},
		{"claude sub-agent of an unknown isolation", "claude", `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"Agent","tool_input":{"prompt":"p","isolation":{"kind":"x"}}}`,
			nil, false, errUnknownTool},
		{"claude remote sub-agent touches no local file", "claude", `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"Agent","tool_input":{"prompt":"p","isolation":"remote"}}`,
			nil, true, nil},
		{"claude sub-agent input not an object", "claude", `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"Agent","tool_input":"p"}`,
			nil, false, errMalformed},
		{"claude no-file tool needs no object input", "claude", `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"ExitPlanMode","tool_input":null}`,
			nil, true, nil},
		{"claude skill reads files it does not name", "claude", `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"Skill","tool_input":{"skill":"pdf"}}`,
			nil, false, errUnknownTool},
		{"claude monitor runs a script", "claude", `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"Monitor","tool_input":{"command":"tail -f x"}}`,
			nil, false, errUnknownTool},
		{"claude gemini's tool name is unknown", "claude", `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"web_fetch","tool_input":{}}`,
			nil, false, errUnknownTool},
		{"claude read without path", "claude", `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"Read","tool_input":{}}`,
			nil, false, errMalformed},
		{"claude path of the wrong type", "claude", `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"Read","tool_input":{"file_path":3}}`,
			nil, false, errMalformed},
		{"claude other event", "claude", `{"hook_event_name":"PostToolUse","tool_name":"Read","tool_input":{"file_path":"/x"}}`,
			nil, false, errMalformed},

		{"codex bash", "codex", `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"Bash","tool_input":{"command":"ls"}}`,
			[]Access{{Command: "cd -- '/w' && ls"}}, false, nil},
		{"codex patch", "codex", `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"apply_patch","tool_input":{"command":"*** Begin Patch\n*** Update File: a.go\n@@\n-x\n+y\n*** Move to: b.go\n*** Delete File: /d/old\n*** Add File: /d/new\n+z\n*** End Patch"}}`,
			[]Access{{Op: "write", Path: "/w/a.go"}, {Op: "write", Path: "/w/b.go"}, {Op: "delete", Path: "/d/old"}, {Op: "write", Path: "/d/new"}}, false, nil},
		{"codex patch changes map", "codex", `{"hook_event_name":"PermissionRequest","cwd":"/w","tool_name":"apply_patch","tool_input":{"/w/b":{"add":{}},"/w/a":{"update":{}}}}`,
			[]Access{{Op: "write", Path: "/w/a"}, {Op: "write", Path: "/w/b"}}, false, nil},
		{"codex patch headers without the space", "codex", `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"apply_patch","tool_input":{"command":"` + noSpacePatch + `"}}`,
			noSpaceWant, false, nil},
		{"copilot patch headers without the space", "copilot", `{"sessionId":"s","cwd":"/w","toolName":"apply_patch","toolArgs":"` + noSpacePatch + `"}`,
			noSpaceWant, false, nil},
		{"cline patch headers without the space", "cline", `{"hookName":"tool_call","taskId":"t","sessionContext":{"rootSessionId":"r1"},"workspaceRoots":["/w"],"workspaceInfo":{"rootPath":"/w"},"tool_call":{"id":"call_1","name":"apply_patch","input":{"input":"` + noSpacePatch + `"}}}`,
			noSpaceWant, false, nil},
		{"droid patch headers without the space", "droid", `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"ApplyPatch","tool_input":{"input":"` + noSpacePatch + `"}}`,
			noSpaceWant, false, nil},
		{"opencode patch headers without the space", "opencode", opencodeCall("apply_patch", `{"patchText":"`+noSpacePatch+`"}`, "null"),
			noSpaceWant, false, nil},
		{"codex patch without files", "codex", `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"apply_patch","tool_input":{"command":"nothing"}}`,
			nil, false, errMalformed},
		{"codex other event", "codex", `{"hook_event_name":"Stop"}`, nil, false, errMalformed},
		{"codex plan touches no local file", "codex", `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"update_plan","tool_input":{"plan":[]}}`,
			nil, true, nil},
		{"codex web search touches no local file", "codex", `{"hook_event_name":"PermissionRequest","cwd":"/w","tool_name":"web_search","tool_input":{"query":"q"}}`,
			nil, true, nil},
		{"codex view_image reads a file it does not map", "codex", `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"view_image","tool_input":{"path":"/d/x.png"}}`,
			nil, false, errUnknownTool},
		{"codex is not claude: WebFetch is unknown", "codex", `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"WebFetch","tool_input":{"url":"u"}}`,
			nil, false, errUnknownTool},

		{"gemini shell in its dir", "gemini", `{"hook_event_name":"BeforeTool","cwd":"/w","tool_name":"run_shell_command","tool_input":{"command":"ls","dir_path":"sub"}}`,
			[]Access{{Command: "cd -- '/w/sub' && ls"}}, false, nil},
		{"gemini read_file", "gemini", `{"hook_event_name":"BeforeTool","cwd":"/w","tool_name":"read_file","tool_input":{"file_path":"/d/r"}}`,
			[]Access{{Op: "read", Path: "/d/r"}}, false, nil},
		{"gemini replace is a write", "gemini", `{"hook_event_name":"BeforeTool","cwd":"/w","tool_name":"replace","tool_input":{"file_path":"/w/a"}}`,
			[]Access{{Op: "write", Path: "/w/a"}}, false, nil},
		{"gemini list_directory", "gemini", `{"hook_event_name":"BeforeTool","cwd":"/w","tool_name":"list_directory","tool_input":{"dir_path":"/d"}}`,
			[]Access{{Op: "read", Path: "/d"}}, false, nil},
		{"gemini read_many_files", "gemini", `{"hook_event_name":"BeforeTool","cwd":"/w","tool_name":"read_many_files","tool_input":{"include":["src/**/*.go","/d/*.csv"]}}`,
			[]Access{{Command: "ls -R -- '/w/src'", Input: searchInput{kind: "glob", pattern: "src/**/*.go"}},
				{Command: "ls -R -- '/d'", Input: searchInput{kind: "glob", pattern: "/d/*.csv"}}}, false, nil},
		{"gemini glob", "gemini", `{"hook_event_name":"BeforeTool","cwd":"/w","tool_name":"glob","tool_input":{"pattern":"**/*.csv","dir_path":"/d"}}`,
			[]Access{{Command: "ls -R -- '/d'", Input: searchInput{kind: "glob", pattern: "**/*.csv", in: "/d"}}}, false, nil},
		{"gemini grep_search", "gemini", `{"hook_event_name":"BeforeTool","cwd":"/w","tool_name":"grep_search","tool_input":{"pattern":"TODO","dir_path":"/d","include_pattern":"*.ts"}}`,
			[]Access{{Command: "ls -R -- '/d'", Input: searchInput{kind: "pattern", pattern: "TODO", in: "/d", filters: []string{`files "*.ts"`}}}}, false, nil},
		{"gemini web search touches no local file", "gemini", `{"hook_event_name":"BeforeTool","cwd":"/w","tool_name":"google_web_search","tool_input":{"query":"q"}}`, nil, true, nil},
		{"gemini web fetch may be made from Gemini CLI's own process", "gemini", `{"hook_event_name":"BeforeTool","cwd":"/w","tool_name":"web_fetch","tool_input":{"prompt":"p"}}`, nil, false, errUnknownTool},
		{"gemini exit_plan_mode reads the plan file", "gemini", `{"hook_event_name":"BeforeTool","cwd":"/w","tool_name":"exit_plan_mode","tool_input":{"plan_path":"p.md"}}`,
			nil, false, errUnknownTool},
		{"gemini tracker writes its task files", "gemini", `{"hook_event_name":"BeforeTool","cwd":"/w","tool_name":"tracker_create_task","tool_input":{}}`,
			nil, false, errUnknownTool},
		{"gemini todos", "gemini", `{"hook_event_name":"BeforeTool","cwd":"/w","tool_name":"write_todos","tool_input":{}}`, nil, true, nil},
		{"gemini memory writes a file it does not name", "gemini", `{"hook_event_name":"BeforeTool","cwd":"/w","tool_name":"save_memory","tool_input":{"fact":"x"}}`,
			nil, false, errUnknownTool},

		{"cursor shell", "cursor", `{"hook_event_name":"beforeShellExecution","conversation_id":"c","command":"ls","cwd":"/w/sub","workspace_roots":["/w"]}`,
			[]Access{{Command: "cd -- '/w/sub' && ls"}}, false, nil},
		{"cursor shell without cwd runs in the first root", "cursor", `{"hook_event_name":"beforeShellExecution","conversation_id":"c","command":"ls","cwd":"","workspace_roots":["/w"]}`,
			[]Access{{Command: "cd -- '/w' && ls"}}, false, nil},
		{"cursor read with attachments", "cursor", `{"hook_event_name":"beforeReadFile","conversation_id":"c","file_path":"/d/r","attachments":[{"type":"file","file_path":"/w/.cursorrules"},{"type":"rule","filePath":"/d/x"}],"workspace_roots":["/w"]}`,
			[]Access{{Op: "read", Path: "/d/r"}, {Op: "read", Path: "/w/.cursorrules"}, {Op: "read", Path: "/d/x"}}, false, nil},

		{"pi read", "pi", `{"hook_event_name":"tool_call","cwd":"/w","tool_name":"read","input":{"path":"a"}}`,
			[]Access{{Op: "read", Path: "/w/a"}}, false, nil},
		{"pi edit", "pi", `{"hook_event_name":"tool_call","cwd":"/w","tool_name":"edit","input":{"path":"/w/a","oldText":"x","newText":"y"}}`,
			[]Access{{Op: "write", Path: "/w/a"}}, false, nil},
		{"pi find", "pi", `{"hook_event_name":"tool_call","cwd":"/w","tool_name":"find","input":{"pattern":"*.go","path":"/d"}}`,
			[]Access{{Command: "ls -R -- '/d'", Input: searchInput{kind: "glob", pattern: "*.go", in: "/d"}}}, false, nil},
		{"pi grep", "pi", `{"hook_event_name":"tool_call","cwd":"/w","tool_name":"grep","input":{"pattern":"TODO","glob":"*.md"}}`,
			[]Access{{Command: "ls -R -- '/w'", Input: searchInput{kind: "pattern", pattern: "TODO", filters: []string{`files "*.md"`}}}}, false, nil},
		{"pi custom tool", "pi", `{"hook_event_name":"tool_call","cwd":"/w","tool_name":"deploy","input":{}}`, nil, false, errUnknownTool},
		{"pi input not an object", "pi", `{"hook_event_name":"tool_call","cwd":"/w","tool_name":"read","input":"x"}`, nil, false, errMalformed},

		{"copilot view", "copilot", `{"sessionId":"s","cwd":"/w","toolName":"view","toolArgs":{"path":"a","view_range":[1,5]}}`,
			[]Access{{Op: "read", Path: "/w/a"}}, false, nil},
		{"copilot create", "copilot", `{"sessionId":"s","cwd":"/w","toolName":"create","toolArgs":{"path":"/d/n","file_text":"x"}}`,
			[]Access{{Op: "write", Path: "/d/n"}}, false, nil},
		{"copilot edit", "copilot", `{"sessionId":"s","cwd":"/w","toolName":"edit","toolArgs":{"path":"/w/a","old_str":"x","new_str":"y"}}`,
			[]Access{{Op: "write", Path: "/w/a"}}, false, nil},
		{"copilot apply_patch is its patch text", "copilot", `{"sessionId":"s","cwd":"/w","toolName":"apply_patch","toolArgs":"*** Begin Patch\n*** Update File: a\n*** Move to: /d/b\n*** Delete File: c\n*** End Patch\n"}`,
			[]Access{{Op: "write", Path: "/w/a"}, {Op: "write", Path: "/d/b"}, {Op: "delete", Path: "/w/c"}}, false, nil},
		{"copilot bash", "copilot", `{"sessionId":"s","cwd":"/w","toolName":"bash","toolArgs":{"command":"ls","description":"d","mode":"sync"}}`,
			[]Access{{Command: "cd -- '/w' && ls"}}, false, nil},
		{"copilot grep over each path", "copilot", `{"sessionId":"s","cwd":"/w","toolName":"grep","toolArgs":{"pattern":"TODO","paths":["/d","src"],"glob":"*.md"}}`,
			[]Access{{Command: "ls -R -- '/d'", Input: searchInput{kind: "pattern", pattern: "TODO", in: "/d", filters: []string{`files "*.md"`}}},
				{Command: "ls -R -- '/w/src'", Input: searchInput{kind: "pattern", pattern: "TODO", in: "src", filters: []string{`files "*.md"`}}}}, false, nil},
		{"copilot rg searches the cwd by default", "copilot", `{"sessionId":"s","cwd":"/w","toolName":"rg","toolArgs":{"pattern":"x"}}`,
			[]Access{{Command: "ls -R -- '/w'", Input: searchInput{kind: "pattern", pattern: "x"}}}, false, nil},
		{"copilot glob", "copilot", `{"sessionId":"s","cwd":"/w","toolName":"glob","toolArgs":{"pattern":"**/*.csv","paths":["/d"]}}`,
			[]Access{{Command: "ls -R -- '/d'", Input: searchInput{kind: "glob", pattern: "**/*.csv", in: "/d"}}}, false, nil},
		{"copilot shells it started touch no file", "copilot", `{"sessionId":"s","cwd":"/w","toolName":"read_bash","toolArgs":{"shellId":"1"}}`, nil, true, nil},
		{"copilot sql attaches any file", "copilot", `{"sessionId":"s","cwd":"/w","toolName":"sql","toolArgs":{"query":"ATTACH '/d/x' AS y"}}`, nil, false, errUnknownTool},
		{"copilot skill reads its skill file", "copilot", `{"sessionId":"s","cwd":"/w","toolName":"skill","toolArgs":{"skill":"pdf"}}`, nil, false, errUnknownTool},
		{"copilot args not an object", "copilot", `{"sessionId":"s","cwd":"/w","toolName":"view","toolArgs":"/etc/passwd"}`, nil, false, errMalformed},
		{"cline read_files, each shape", "cline", `{"hookName":"tool_call","taskId":"t","sessionContext":{"rootSessionId":"r1"},"workspaceRoots":["/w"],"workspaceInfo":{"rootPath":"/w"},"tool_call":{"id":"call_1","name":"read_files","input":{"files":[{"path":"a"},"/d/b",{"file_path":"/d/e"},{"filePath":"/d/f"},{"paths":["/d/c"]}]}}}`,
			[]Access{{Op: "read", Path: "/w/a"}, {Op: "read", Path: "/d/b"}, {Op: "read", Path: "/d/e"}, {Op: "read", Path: "/d/f"}, {Op: "read", Path: "/d/c"}}, false, nil},
		{"cline read_files naming its files under two keys", "cline", `{"hookName":"tool_call","taskId":"t","sessionContext":{"rootSessionId":"r1"},"workspaceRoots":["/w"],"workspaceInfo":{"rootPath":"/w"},"tool_call":{"id":"call_1","name":"read_files","input":{"files":["/w/a"],"paths":"/d/c"}}}`,
			nil, false, errTwoKeys},
		{"cline read_files, a bare path", "cline", `{"hookName":"tool_call","taskId":"t","sessionContext":{"rootSessionId":"r1"},"workspaceRoots":["/w"],"workspaceInfo":{"rootPath":"/w"},"tool_call":{"id":"call_1","name":"read_files","input":"/d/r"}}`, []Access{{Op: "read", Path: "/d/r"}}, false, nil},
		{"cline editor", "cline", `{"hookName":"tool_call","taskId":"t","sessionContext":{"rootSessionId":"r1"},"workspaceRoots":["/w"],"workspaceInfo":{"rootPath":"/w"},"tool_call":{"id":"call_1","name":"editor","input":{"path":"/d/n","new_text":"x"}}}`, []Access{{Op: "write", Path: "/d/n"}}, false, nil},
		{"cline apply_patch", "cline", `{"hookName":"tool_call","taskId":"t","sessionContext":{"rootSessionId":"r1"},"workspaceRoots":["/w"],"workspaceInfo":{"rootPath":"/w"},"tool_call":{"id":"call_1","name":"apply_patch","input":{"input":"*** Begin Patch\n*** Add File: n\n+x\n*** End Patch"}}}`,
			[]Access{{Op: "write", Path: "/w/n"}}, false, nil},
		{"cline run_commands, a command a line", "cline", `{"hookName":"tool_call","taskId":"t","sessionContext":{"rootSessionId":"r1"},"workspaceRoots":["/w"],"workspaceInfo":{"rootPath":"/w"},"tool_call":{"id":"call_1","name":"run_commands","input":{"commands":["ls",{"command":"cat","args":["a b"]}]}}}`,
			[]Access{{Command: "cd -- '/w' && ls\n'cat' 'a b'"}}, false, nil},
		{"cline run_commands, cmd", "cline", `{"hookName":"tool_call","taskId":"t","sessionContext":{"rootSessionId":"r1"},"workspaceRoots":["/w"],"workspaceInfo":{"rootPath":"/w"},"tool_call":{"id":"call_1","name":"run_commands","input":{"cmd":"pwd"}}}`, []Access{{Command: "cd -- '/w' && pwd"}}, false, nil},
		{"cline search_codebase searches the workspace", "cline", `{"hookName":"tool_call","taskId":"t","sessionContext":{"rootSessionId":"r1"},"workspaceRoots":["/w"],"workspaceInfo":{"rootPath":"/w"},"tool_call":{"id":"call_1","name":"search_codebase","input":{"queries":["TODO"]}}}`,
			[]Access{{Command: "ls -R -- '/w'"}}, false, nil},
		{"cline fetch is made from Cline's own process", "cline", `{"hookName":"tool_call","taskId":"t","sessionContext":{"rootSessionId":"r1"},"workspaceRoots":["/w"],"workspaceInfo":{"rootPath":"/w"},"tool_call":{"id":"call_1","name":"fetch_web_content","input":{"requests":[]}}}`, nil, false, errUnknownTool},
		{"cline skills run more than pathgrant can see", "cline", `{"hookName":"tool_call","taskId":"t","sessionContext":{"rootSessionId":"r1"},"workspaceRoots":["/w"],"workspaceInfo":{"rootPath":"/w"},"tool_call":{"id":"call_1","name":"skills","input":{"skill":"s"}}}`, nil, false, errUnknownTool},
		{"cline run_commands of an unknown shape", "cline", `{"hookName":"tool_call","taskId":"t","sessionContext":{"rootSessionId":"r1"},"workspaceRoots":["/w"],"workspaceInfo":{"rootPath":"/w"},"tool_call":{"id":"call_1","name":"run_commands","input":{"commands":[7]}}}`, nil, false, errMalformed},
		{"cline run_commands naming two commands", "cline", `{"hookName":"tool_call","workspaceRoots":["/w"],"workspaceInfo":{"rootPath":"/w"},"tool_call":{"name":"run_commands","input":{"commands":["ls"],"command":"cat /d/k"}}}`,
			nil, false, errTwoKeys},
		{"cline run_commands naming none", "cline", `{"hookName":"tool_call","workspaceRoots":["/w"],"workspaceInfo":{"rootPath":"/w"},"tool_call":{"name":"run_commands","input":{"commands":["ls",{"args":["x"]}]}}}`,
			nil, false, errMalformed},
		{"cline read_files without paths", "cline", `{"hookName":"tool_call","taskId":"t","sessionContext":{"rootSessionId":"r1"},"workspaceRoots":["/w"],"workspaceInfo":{"rootPath":"/w"},"tool_call":{"id":"call_1","name":"read_files","input":{"limit":3}}}`, nil, false, errMalformed},
		{"cline not a tool call", "cline", `{"hookName":"agent_end","taskId":"t"}`, nil, false, errMalformed},
		{"droid Read", "droid", `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"Read","tool_input":{"file_path":"a"}}`,
			[]Access{{Op: "read", Path: "/w/a"}}, false, nil},
		{"droid Create", "droid", `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"Create","tool_input":{"file_path":"/d/n","content":"x"}}`,
			[]Access{{Op: "write", Path: "/d/n"}}, false, nil},
		{"droid Edit", "droid", `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"Edit","tool_input":{"file_path":"/w/a","old_str":"x","new_str":"y"}}`,
			[]Access{{Op: "write", Path: "/w/a"}}, false, nil},
		{"droid ApplyPatch", "droid", `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"ApplyPatch","tool_input":{"input":"*** Begin Patch\n*** Delete File: /d/x\n*** End Patch"}}`,
			[]Access{{Op: "delete", Path: "/d/x"}}, false, nil},
		{"droid Execute", "droid", `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"Execute","tool_input":{"command":"ls","riskLevel":"low"}}`,
			[]Access{{Command: "cd -- '/w' && ls"}}, false, nil},
		{"droid LS", "droid", `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"LS","tool_input":{"directory_path":"/d"}}`,
			[]Access{{Op: "read", Path: "/d"}}, false, nil},
		{"droid Grep", "droid", `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"Grep","tool_input":{"pattern":"x","path":"/d","glob_pattern":"*.md"}}`,
			[]Access{{Command: "ls -R -- '/d'", Input: searchInput{kind: "pattern", pattern: "x", in: "/d", filters: []string{`files "*.md"`}}}}, false, nil},
		{"droid Glob, each pattern", "droid", `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"Glob","tool_input":{"patterns":["*.csv","/e/*.txt"],"folder":"/d"}}`,
			[]Access{{Command: "ls -R -- '/d'", Input: searchInput{kind: "glob", pattern: "*.csv", in: "/d"}},
				{Command: "ls -R -- '/e'", Input: searchInput{kind: "glob", pattern: "/e/*.txt", in: "/d"}},
				{Command: "ls -R -- '/d/e'", Input: searchInput{kind: "glob", pattern: "/e/*.txt", in: "/d"}}}, false, nil},
		{"droid Task with images reads them", "droid", `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"Task","tool_input":{"prompt":"p","image_paths":["/d/a.png"]}}`,
			[]Access{{Op: "read", Path: "/d/a.png"}}, false, nil},
		{"droid Task without images", "droid", `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"Task","tool_input":{"prompt":"p"}}`, nil, true, nil},
		{"droid FetchUrl", "droid", `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"FetchUrl","tool_input":{"url":"u"}}`, nil, true, nil},
		{"droid Skill reads skill files", "droid", `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"Skill","tool_input":{"skill":"s"}}`, nil, false, errUnknownTool},
		{"qwen read_file", "qwen", `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"read_file","tool_input":{"file_path":"a","offset":1}}`,
			[]Access{{Op: "read", Path: "/w/a"}}, false, nil},
		{"qwen edit and its old name", "qwen", `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"replace","tool_input":{"file_path":"/d/a"}}`,
			[]Access{{Op: "write", Path: "/d/a"}}, false, nil},
		{"qwen notebook_edit", "qwen", `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"notebook_edit","tool_input":{"notebook_path":"/w/n.ipynb"}}`,
			[]Access{{Op: "write", Path: "/w/n.ipynb"}}, false, nil},
		{"qwen shell in its directory", "qwen", `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"run_shell_command","tool_input":{"command":"ls","directory":"sub"}}`,
			[]Access{{Command: "cd -- '/w/sub' && ls"}}, false, nil},
		{"qwen grep_search", "qwen", `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"grep_search","tool_input":{"pattern":"TODO","path":"/d","glob":"*.md"}}`,
			[]Access{{Command: "ls -R -- '/d'", Input: searchInput{kind: "pattern", pattern: "TODO", in: "/d", filters: []string{`files "*.md"`}}}}, false, nil},
		{"qwen glob", "qwen", `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"glob","tool_input":{"pattern":"**/*.csv","path":"/d"}}`,
			[]Access{{Command: "ls -R -- '/d'", Input: searchInput{kind: "glob", pattern: "**/*.csv", in: "/d"}}}, false, nil},
		{"qwen list_directory", "qwen", `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"list_directory","tool_input":{"path":"/d"}}`,
			[]Access{{Op: "read", Path: "/d"}}, false, nil},
		{"qwen web_fetch is made from Qwen Code's own process", "qwen", `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"web_fetch","tool_input":{"url":"u"}}`, nil, false, errUnknownTool},
		{"qwen monitor runs a script", "qwen", `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"monitor","tool_input":{}}`, nil, false, errUnknownTool},
		{"qwen exec", "qwen", `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"exec","tool_input":{}}`, nil, false, errUnknownTool},
		{"qwen Gemini's event name", "qwen", `{"hook_event_name":"BeforeTool","cwd":"/w","tool_name":"read_file","tool_input":{"file_path":"a"}}`, nil, false, errMalformed},
		{"copilot grep without a pattern", "copilot", `{"sessionId":"s","cwd":"/w","toolName":"grep","toolArgs":{"paths":["/d"]}}`, nil, false, errMalformed},
		{"opencode bash runs in its cwd", "opencode", opencodeCall("bash", `{"command":"cat x","timeout":5000}`, "null"),
			[]Access{{Command: "cd -- '/w' && cat x"}}, false, nil},
		{"opencode bash in its workdir", "opencode", opencodeCall("bash", `{"command":"ls","workdir":"/d"}`, "null"),
			[]Access{{Command: "cd -- '/d' && ls"}}, false, nil},
		{"opencode bash relative workdir resolved as path.resolve does", "opencode", opencodeCall("bash", `{"command":"ls","workdir":"sub/../x"}`, "null"),
			[]Access{{Command: "cd -- '/w/x' && ls"}}, false, nil},
		{"opencode bash absolute workdir cleaned as path.resolve does", "opencode", opencodeCall("bash", `{"command":"ls","workdir":"/d/link/../x"}`, "null"),
			[]Access{{Command: "cd -- '/d/x' && ls"}}, false, nil},
		{"opencode bash workdir of the wrong type", "opencode", opencodeCall("bash", `{"command":"ls","workdir":7}`, "null"),
			nil, false, errMalformed},
		{"opencode bash without a command", "opencode", opencodeCall("bash", `{"workdir":"/d"}`, "null"),
			nil, false, errMalformed},
		{"opencode read relative path cleaned as path.resolve does", "opencode", opencodeCall("read", `{"filePath":"link/../x"}`, "null"),
			[]Access{{Op: "read", Path: "/w/x"}}, false, nil},
		{"opencode read absolute path left as it is", "opencode", opencodeCall("read", `{"filePath":"/d/link/../r.csv","offset":1,"limit":10}`, "null"),
			[]Access{{Op: "read", Path: "/d/link/../r.csv"}}, false, nil},
		{"opencode read of the cwd's parent", "opencode", opencodeCall("read", `{"filePath":".."}`, "null"),
			[]Access{{Op: "read", Path: "/"}}, false, nil},
		{"opencode lsp reads its file", "opencode", opencodeCall("lsp", `{"operation":"hover","filePath":"a.go","line":1,"character":1}`, "null"),
			[]Access{{Op: "read", Path: "/w/a.go"}}, false, nil},
		{"opencode write", "opencode", opencodeCall("write", `{"filePath":"/d/n","content":"x"}`, "null"),
			[]Access{{Op: "write", Path: "/d/n"}}, false, nil},
		{"opencode edit is a write", "opencode", opencodeCall("edit", `{"filePath":"a","oldString":"x","newString":"y","replaceAll":true}`, "null"),
			[]Access{{Op: "write", Path: "/w/a"}}, false, nil},
		{"opencode apply_patch", "opencode", opencodeCall("apply_patch", `{"patchText":"*** Begin Patch\n*** Add File:/x\n+y\n*** Update File: a/../b\n@@\n-x\n+y\n*** Move to: c\n*** Delete File: /d/link/../old\n*** End Patch"}`, "null"),
			[]Access{{Op: "write", Path: "/x"}, {Op: "write", Path: "/w/b"}, {Op: "write", Path: "/w/c"}, {Op: "delete", Path: "/d/old"}}, false, nil},
		{"opencode apply_patch without files", "opencode", opencodeCall("apply_patch", `{"patchText":"*** Begin Patch\n*** End Patch"}`, "null"),
			nil, false, errMalformed},
		{"opencode apply_patch without its text", "opencode", opencodeCall("apply_patch", `{"patch":"*** Begin Patch\n*** Add File: /x\n*** End Patch"}`, "null"),
			nil, false, errMalformed},
		{"opencode glob", "opencode", opencodeCall("glob", `{"pattern":"**/*.csv","path":"/d"}`, "null"),
			[]Access{{Command: "ls -R -- '/d'", Input: searchInput{kind: "glob", pattern: "**/*.csv", in: "/d"}}}, false, nil},
		{"opencode glob of an absolute pattern, anchored at the folder by ripgrep too", "opencode", opencodeCall("glob", `{"pattern":"/e/*.txt","path":"/d"}`, "null"),
			[]Access{{Command: "ls -R -- '/e'", Input: searchInput{kind: "glob", pattern: "/e/*.txt", in: "/d"}},
				{Command: "ls -R -- '/d/e'", Input: searchInput{kind: "glob", pattern: "/e/*.txt", in: "/d"}}}, false, nil},
		{"opencode glob without path searches the cwd", "opencode", opencodeCall("glob", `{"pattern":"src/*.go"}`, "null"),
			[]Access{{Command: "ls -R -- '/w/src'", Input: searchInput{kind: "glob", pattern: "src/*.go"}}}, false, nil},
		{"opencode grep with its include filter", "opencode", opencodeCall("grep", `{"pattern":"TODO","path":"`+dir+`","include":"*.md"}`, "null"),
			[]Access{{Command: "ls -R -- '" + dir + "'", Input: searchInput{kind: "pattern", pattern: "TODO", in: dir, filters: []string{`files "*.md"`}}}}, false, nil},
		{"opencode grep of one file searches its whole folder", "opencode", opencodeCall("grep", `{"pattern":"x","path":"`+file+`"}`, "null"),
			[]Access{{Command: "ls -R -- '" + dir + "'", Input: searchInput{kind: "pattern", pattern: "x", in: file}}}, false, nil},
		{"opencode web search touches no local file", "opencode", opencodeCall("websearch", `{"query":"q"}`, "null"),
			nil, true, nil},
		{"opencode web fetch reaches loopback from OpenCode's own process", "opencode", opencodeCall("webfetch", `{"url":"http://127.0.0.1:4096/file/content?path=/etc/passwd"}`, "null"),
			nil, false, errUnknownTool},
		{"opencode sub-agent touches no local file", "opencode", opencodeCall("task", `{"description":"d","prompt":"p","subagent_type":"general"}`, "null"),
			nil, true, nil},
		{"opencode skill reads skill files", "opencode", opencodeCall("skill", `{"name":"pdf"}`, "null"),
			nil, false, errUnknownTool},
		{"opencode execute runs code that calls tools", "opencode", opencodeCall("execute", `{"code":"x"}`, "null"),
			nil, false, errUnknownTool},
		{"opencode plan_exit reads the plan file", "opencode", opencodeCall("plan_exit", `{}`, "null"),
			nil, false, errUnknownTool},
		{"opencode custom tool fits no MCP server", "opencode", opencodeCall("deploy", `{}`, opencodeServers),
			nil, false, errUnknownTool},
		{"opencode custom tool with no MCP servers named", "opencode", opencodeCall("mini_echo_path", `{"path":"/etc/passwd"}`, "null"),
			nil, false, errUnknownTool},
		{"opencode MCP tool", "opencode", opencodeCall("mini_echo_path", `{"path":"/etc/passwd"}`, opencodeServers),
			nil, false, nil},
		{"opencode read checks the one key its schema names", "opencode", opencodeCall("read", `{"filePath":"/w/a","path":"/d/b"}`, "null"),
			[]Access{{Op: "read", Path: "/w/a"}}, false, nil},
		{"opencode bash naming two commands", "opencode", opencodeCall("bash", `{"command":"ls","cmd":"cat /d/k"}`, "null"),
			nil, false, errTwoKeys},
		{"opencode read without its path", "opencode", opencodeCall("read", `{"path":"/d/b"}`, "null"),
			nil, false, errMalformed},
		{"opencode args not an object", "opencode", opencodeCall("read", `"/etc/passwd"`, "null"),
			nil, false, errMalformed},
		{"opencode args missing", "opencode", `{"hook_event_name":"tool.execute.before","session_id":"opencode-1","cwd":"/w","tool_name":"write"}`,
			nil, false, errMalformed},
		{"opencode other event", "opencode", `{"hook_event_name":"tool.execute.after","session_id":"opencode-1","cwd":"/w","tool_name":"read","args":{"filePath":"/x"}}`,
			nil, false, errMalformed},
		{"opencode no tool", "opencode", `{"hook_event_name":"tool.execute.before","session_id":"opencode-1","cwd":"/w","args":{}}`,
			nil, false, errMalformed},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := adapterOf(t, tc.client).parse([]byte(tc.input))
			if !errors.Is(err, tc.err) || (tc.err == nil) != (err == nil) {
				t.Fatalf("error %v, want %v", err, tc.err)
			}
			if err != nil {
				return
			}
			if !reflect.DeepEqual(c.Accesses, tc.want) || c.NoFiles != tc.noFiles {
				t.Errorf("accesses %+v (no files %v), want %+v (%v)", c.Accesses, c.NoFiles, tc.want, tc.noFiles)
			}
		})
	}
}

func TestSessionFields(t *testing.T) {
	cases := []struct {
		client, input         string
		session, cwd, request string
		roots                 []string
	}{
		{"claude", `{"session_id":"s1","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"/x"},"tool_use_id":"t1"}`, "s1", "/w", "t1", nil},
		{"codex", `{"session_id":"s2","turn_id":"7","cwd":"/w","hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"ls"}}`, "s2", "/w", "7", nil},
		{"gemini", `{"session_id":"s3","cwd":"/w","hook_event_name":"BeforeTool","tool_name":"read_file","tool_input":{"file_path":"/x"}}`, "s3", "/w", "", nil},
		{"cursor", `{"conversation_id":"s4","generation_id":"g","hook_event_name":"beforeReadFile","file_path":"/x","workspace_roots":["/w","/v"]}`, "s4", "/w", "g", []string{"/w", "/v"}},
		{"pi", `{"session_id":"s5","cwd":"/w","hook_event_name":"tool_call","tool_name":"read","tool_call_id":"c","input":{"path":"/x"}}`, "s5", "/w", "c", nil},
		{"cline", `{"hookName":"tool_call","taskId":"t","sessionContext":{"rootSessionId":"r1"},"workspaceRoots":["/w"],"workspaceInfo":{"rootPath":"/w"},"tool_call":{"id":"call_1","name":"editor","input":{"path":"/x"}}}`, "r1", "/w", "call_1", []string{"/w"}},
		{"droid", `{"session_id":"s8","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"/x"}}`, "s8", "/w", "", nil},
		{"qwen", `{"session_id":"s7","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"read_file","tool_input":{"file_path":"/x"},"tool_use_id":"toolu_1","tool_call_id":"call_1"}`, "s7", "/w", "toolu_1", nil},
		{"copilot", `{"sessionId":"s6","timestamp":1,"cwd":"/w","toolName":"view","toolArgs":{"path":"/x"}}`, "s6", "/w", "", nil},
		{"opencode", opencodeCall("read", `{"filePath":"/x"}`, "null"), "opencode-1", "/w", "call_1", nil},
	}
	for _, tc := range cases {
		t.Run(tc.client, func(t *testing.T) {
			c, err := adapterOf(t, tc.client).parse([]byte(tc.input))
			if err != nil {
				t.Fatal(err)
			}
			if c.ClientSession != tc.session || c.Cwd != tc.cwd || c.RequestID != tc.request || !reflect.DeepEqual(c.WorkspaceRoots, tc.roots) {
				t.Errorf("got session %q cwd %q request %q roots %v", c.ClientSession, c.Cwd, c.RequestID, c.WorkspaceRoots)
			}
		})
	}
}

func TestGlobRoot(t *testing.T) {
	cases := []struct{ base, pattern, want string }{
		{"/w", "*.go", "/w"},
		{"/w", "report.csv", "/w"},
		{"/w", "src/*.go", "/w/src"},
		{"/w", "src/a/**", "/w/src/a"},
		{"/w", "src/{a,b}/x", "/w/src"},
		{"/w", "/abs/dir/*.csv", "/abs/dir"},
		{"/w", "/abs/file.csv", "/abs/file.csv"},
		{"/w", "/*", "/"},
		{"", "src/*.go", "src"},
		{"/w/", "a/b/c", "/w/a/b"},
		{"/w", `a\*/b`, "/w"},
	}
	for _, tc := range cases {
		if got := globRoot(tc.base, tc.pattern); got != tc.want {
			t.Errorf("globRoot(%q, %q) = %q, want %q", tc.base, tc.pattern, got, tc.want)
		}
	}
}

// TestRenderNeverAllowsADeny renders every deny verdict for every client
// and event: none may read as an allow in that client's terms.
func TestRenderNeverAllowsADeny(t *testing.T) {
	events := map[string][]string{
		"claude": {"PreToolUse"}, "codex": {"PreToolUse", "PermissionRequest"}, "gemini": {"BeforeTool"},
		"cursor": {"beforeShellExecution", "beforeReadFile", "beforeMCPExecution"}, "pi": {"tool_call"},
		"copilot": {"preToolUse"}, "qwen": {"PreToolUse"}, "droid": {"PreToolUse"}, "cline": {"PreToolUse"},
		"opencode": {"tool.execute.before"},
	}
	for _, client := range Clients() {
		evs := events[client]
		if len(evs) == 0 {
			t.Errorf("%s: no events to render a deny for: add its tool events", client)
		}
		for _, ev := range evs {
			out := adapterOf(t, client).render(Call{Client: client, Event: ev}, Verdict{Reason: "pathgrant: no"})
			s := string(out.Stdout)
			if out.Exit != 0 || s == "" || !containsAny(s, `"deny"`, `"block":true`, `"pathgrant_denied"`, `"cancel":true`) || !containsAny(s, "pathgrant: no") {
				t.Errorf("%s %s: deny rendered as %q exit %d", client, ev, s, out.Exit)
			}
		}
	}
}

func containsAny(s string, subs ...string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// adapterOf is the named client's adapter from the client table.
func adapterOf(t *testing.T, name string) adapter {
	t.Helper()
	c, err := LookupClient(name)
	if err != nil {
		t.Fatal(err)
	}
	return c.adapter
}

// TestOpenCodeMCPNames: OpenCode names an MCP tool SERVER_TOOL, so a tool
// that is not one of its own is an MCP tool only when its name starts
// with a configured server's name (characters outside [A-Za-z0-9_-] made
// "_") and "_", and pathgrant's bridge only when the server "pathgrant"
// is the one such server and its entry starts pathgrant's bridge.
func TestOpenCodeMCPNames(t *testing.T) {
	const bridge = `{"type":"local","command":["/usr/bin/pathgrant","mcp"],"enabled":true}`
	tests := []struct {
		name, tool, servers string
		mcp, bridge         bool
		server              string // the server the call is taken for
		err                 error
	}{
		{"the bridge", "pathgrant_read_file", `{"pathgrant":` + bridge + `}`, true, true, "pathgrant", nil},
		{"the bridge on its socket", "pathgrant_execute_shell_command",
			`{"pathgrant":{"type":"local","command":["/opt/pg/pathgrant","mcp","--socket","/run/pg.sock"]}}`, true, true, "pathgrant", nil},
		{"two servers fit: ambiguous", "pathgrant_read_file", `{"pathgrant":` + bridge + `,"pathgrant_read":` + bridge + `}`, true, false, "", nil},
		{"a server named pathgrant that is not the bridge", "pathgrant_read_file",
			`{"pathgrant":{"type":"local","command":["node","/opt/pathgrant/mcp.js"]}}`, true, false, "pathgrant", nil},
		{"a remote server named pathgrant", "pathgrant_read_file", `{"pathgrant":{"type":"remote","url":"https://example.com/mcp"}}`, true, false, "pathgrant", nil},
		{"a tool the bridge does not have", "pathgrant_delete_file", `{"pathgrant":` + bridge + `}`, true, false, "pathgrant", nil},
		{"another server's tool", "mini_echo_path", opencodeServers, true, false, "mini", nil},
		{"another server's tool named as the bridge's", "mini_read_file", `{"mini":` + bridge + `}`, true, false, "mini", nil},
		{"a server name OpenCode rewrites", "my_srv_echo", `{"my.srv":{"type":"local","command":["x"]}}`, true, false, "my.srv", nil},
		{"no servers named", "pathgrant_read_file", "null", false, false, "", errUnknownTool},
		{"no server fits", "pathgrant_read_file", opencodeServers, false, false, "", errUnknownTool},
		{"a built-in tool is never a server's", "read", `{"read":` + bridge + `}`, false, false, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := adapterOf(t, "opencode").parse([]byte(opencodeCall(tt.tool, `{"filePath":"/w/a"}`, tt.servers)))
			if !errors.Is(err, tt.err) || (tt.err == nil) != (err == nil) {
				t.Fatalf("error %v, want %v", err, tt.err)
			}
			if err == nil && (c.MCP != tt.mcp || c.Bridge != tt.bridge || c.MCPServer != tt.server) {
				t.Errorf("MCP %v bridge %v server %q, want %v %v %q", c.MCP, c.Bridge, c.MCPServer, tt.mcp, tt.bridge, tt.server)
			}
		})
	}
}
