package hooks_test

import (
	"encoding/json"
	"strings"
	"testing"

	"pathgrant/devicepolicy"
	"pathgrant/grants"
	"pathgrant/hooks"
)

// jsonText is s as it appears inside a JSON string.
func jsonText(s string) string {
	data, _ := json.Marshal(s)
	return string(data[1 : len(data)-1])
}

// unmappedText is the hook's deny of an unmapped tool: the daemon's
// answer to its unmapped check.
func unmappedText(tool string) string {
	return `pathgrant: the files the tool "` + tool +
		`" touches cannot be known before it runs, so it is denied: do not retry it; do it with a file or shell tool instead, ` +
		`or ask the person to set unmapped_tools = "ask-client" in pathgrant's device policy, which leaves such tools to the client's own permission flow`
}

// unmappedReason is unmappedText inside a JSON answer.
func unmappedReason(tool string) string { return jsonText(unmappedText(tool)) }

// TestToolClasses runs the real hook on every client's tools of the two
// classes that are neither a file access nor MCP. A tool known to touch no
// local file is left to the client's own permission flow without asking
// the daemon (so a daemon that is down changes nothing). A tool pathgrant
// cannot map is asked of the daemon, which answers from its device
// policy: denied and recorded as a refusal, or, with unmapped_tools =
// "ask-client", left to the client with nothing recorded (blocked on Pi,
// which has no flow of its own); with the daemon down it is denied
// whatever the policy. A web fetch the client makes from its own process
// (Claude, Gemini, Qwen, Cline, OpenCode) is such a tool: it reaches the
// person's loopback; Droid's, run by the Factory API, is not.
func TestToolClasses(t *testing.T) {
	const (
		claudeSearch   = `{"session_id":"s1","cwd":"/home/user/work","hook_event_name":"PreToolUse","tool_name":"WebSearch","tool_input":{"query":"q"},"tool_use_id":"t1"}`
		claudeWebFetch = `{"session_id":"s1","cwd":"/home/user/work","hook_event_name":"PreToolUse","tool_name":"WebFetch","tool_input":{"url":"https://127.0.0.1.nip.io:8443/","prompt":"p"},"tool_use_id":"t1"}`
		claudeSkill    = `{"session_id":"s1","cwd":"/home/user/work","hook_event_name":"PreToolUse","tool_name":"Skill","tool_input":{"skill":"pdf"},"tool_use_id":"t2"}`
		codexSearch    = `{"session_id":"s2","turn_id":"1","cwd":"/home/user/work","hook_event_name":"PreToolUse","tool_name":"web_search","tool_input":{"query":"q"}}`
		codexPlanAsk   = `{"session_id":"s2","turn_id":"1","cwd":"/home/user/work","hook_event_name":"PermissionRequest","tool_name":"update_plan","tool_input":{"plan":[]}}`
		codexImage     = `{"session_id":"s2","turn_id":"1","cwd":"/home/user/work","hook_event_name":"PreToolUse","tool_name":"view_image","tool_input":{"path":"/home/user/Downloads/x.png"}}`
		geminiSearch   = `{"session_id":"s3","cwd":"/home/user/work","hook_event_name":"BeforeTool","tool_name":"google_web_search","tool_input":{"query":"q"}}`
		geminiFetch    = `{"session_id":"s3","cwd":"/home/user/work","hook_event_name":"BeforeTool","tool_name":"web_fetch","tool_input":{"prompt":"https://example.com/redirect-to-loopback"}}`
		geminiPlan     = `{"session_id":"s3","cwd":"/home/user/work","hook_event_name":"BeforeTool","tool_name":"exit_plan_mode","tool_input":{"plan_path":"plan.md"}}`
		piDeploy       = `{"session_id":"s4","cwd":"/home/user/work","hook_event_name":"tool_call","tool_name":"deploy","tool_call_id":"c1","input":{}}`
		copilotShell   = `{"sessionId":"s5","timestamp":1,"cwd":"/home/user/work","toolName":"read_bash","toolArgs":{"shellId":"1","delay":5}}`
		qwenSearch     = `{"session_id":"s6","cwd":"/home/user/work","hook_event_name":"PreToolUse","tool_name":"web_search","tool_input":{"query":"q"},"tool_use_id":"t6"}`
		qwenFetch      = `{"session_id":"s6","cwd":"/home/user/work","hook_event_name":"PreToolUse","tool_name":"web_fetch","tool_input":{"url":"http://127.0.0.1:4096/file/content?path=/etc/passwd","prompt":"p"},"tool_use_id":"t6"}`
		qwenMonitor    = `{"session_id":"s6","cwd":"/home/user/work","hook_event_name":"PreToolUse","tool_name":"monitor","tool_input":{"command":"tail -f log"},"tool_use_id":"t6"}`
		droidTodo      = `{"session_id":"s7","cwd":"/home/user/work","hook_event_name":"PreToolUse","tool_name":"TodoWrite","tool_input":{"todos":"1. x"}}`
		droidFetch     = `{"session_id":"s7","cwd":"/home/user/work","hook_event_name":"PreToolUse","tool_name":"FetchUrl","tool_input":{"url":"https://example.com/"}}`
		droidSkill     = `{"session_id":"s7","cwd":"/home/user/work","hook_event_name":"PreToolUse","tool_name":"Skill","tool_input":{"skill":"deploy"}}`
		clineAsk       = `{"hookName":"tool_call","taskId":"t","sessionContext":{"rootSessionId":"r1"},"workspaceRoots":["/home/user/work"],"workspaceInfo":{"rootPath":"/home/user/work"},"tool_call":{"id":"call_1","name":"ask_question","input":{"question":"q","options":["a","b"]}}}`
		clineFetch     = `{"hookName":"tool_call","taskId":"t","sessionContext":{"rootSessionId":"r1"},"workspaceRoots":["/home/user/work"],"workspaceInfo":{"rootPath":"/home/user/work"},"tool_call":{"id":"call_1","name":"fetch_web_content","input":{"requests":[{"url":"http://127.0.0.1:4096/file/content?path=/etc/passwd","prompt":"p"}]}}}`
		clineSkills    = `{"hookName":"tool_call","taskId":"t","sessionContext":{"rootSessionId":"r1"},"workspaceRoots":["/home/user/work"],"workspaceInfo":{"rootPath":"/home/user/work"},"tool_call":{"id":"call_1","name":"skills","input":{"skill":"deploy"}}}`
		copilotSQL     = `{"sessionId":"s5","timestamp":1,"cwd":"/home/user/work","toolName":"sql","toolArgs":{"query":"select 1","description":"d"}}`
		opencodeSearch = `{"hook_event_name":"tool.execute.before","session_id":"opencode-8","cwd":"/home/user/work","tool_name":"websearch","call_id":"c8","args":{"query":"q"},"mcp_servers":null}`
		opencodeSkill  = `{"hook_event_name":"tool.execute.before","session_id":"opencode-8","cwd":"/home/user/work","tool_name":"skill","call_id":"c8","args":{"name":"pdf"},"mcp_servers":null}`
		opencodeFetch  = `{"hook_event_name":"tool.execute.before","session_id":"opencode-8","cwd":"/home/user/work","tool_name":"webfetch","call_id":"c8","args":{"url":"http://127.0.0.1:4096/file/content?path=/etc/passwd"},"mcp_servers":null}`
		opencodeCustom = `{"hook_event_name":"tool.execute.before","session_id":"opencode-8","cwd":"/home/user/work","tool_name":"deploy","call_id":"c8","args":{},"mcp_servers":{"mini":{"type":"local","command":["node","/opt/mini/mcp.js"]}}}`
	)
	const askClient = devicepolicy.AskClient
	tests := []struct {
		name, client, input string
		unmapped            string // the daemon's unmapped_tools, when not the default
		down                bool   // no daemon on the socket
		stdout              string // exact; $SOCK is the socket
		refused             string // the tool a refusal is recorded for, "" for none
	}{
		{name: "claude web search defers", client: "claude", input: claudeSearch, down: true, stdout: `{}`},
		{name: "codex web search defers", client: "codex", input: codexSearch, down: true, stdout: ``},
		{name: "codex plan: Codex asks as usual", client: "codex", input: codexPlanAsk, down: true, stdout: ``},
		{name: "gemini web search defers", client: "gemini", input: geminiSearch, down: true, stdout: `{}`},
		{name: "cline question defers", client: "cline", input: clineAsk, down: true, stdout: `{}`},
		{name: "droid to-do list defers", client: "droid", input: droidTodo, down: true, stdout: `{}`},
		{name: "droid web fetch (run by the Factory API) defers", client: "droid", input: droidFetch, down: true, stdout: `{}`},
		{name: "qwen web search defers", client: "qwen", input: qwenSearch, down: true, stdout: `{}`},
		{name: "copilot shell output defers", client: "copilot", input: copilotShell, down: true, stdout: `{}`},
		{name: "opencode web search defers", client: "opencode", input: opencodeSearch, down: true, stdout: `{"block":false}`},

		{name: "claude unmapped denied and recorded", client: "claude", input: claudeSkill, stdout: claudeDeny(unmappedReason("Skill")), refused: "Skill"},
		{name: "codex unmapped denied and recorded", client: "codex", input: codexImage, stdout: claudeDeny(unmappedReason("view_image")), refused: "view_image"},
		{name: "gemini unmapped denied and recorded", client: "gemini", input: geminiPlan, stdout: geminiDeny(unmappedReason("exit_plan_mode")), refused: "exit_plan_mode"},
		{name: "pi unmapped denied and recorded", client: "pi", input: piDeploy, stdout: piBlock(unmappedReason("deploy")), refused: "deploy"},
		{name: "cline unmapped stops the run and is recorded", client: "cline", input: clineSkills,
			stdout: `{"cancel":true,"errorMessage":"` + unmappedReason("skills") + `","contextModification":"` + unmappedReason("skills") + `"}`, refused: "skills"},
		{name: "droid unmapped denied and recorded", client: "droid", input: droidSkill, stdout: claudeDeny(unmappedReason("Skill")), refused: "Skill"},
		{name: "qwen unmapped denied and recorded", client: "qwen", input: qwenMonitor, stdout: qwenDeny(unmappedReason("monitor")), refused: "monitor"},
		{name: "copilot unmapped denied and recorded", client: "copilot", input: copilotSQL, stdout: copilotDeny(unmappedReason("sql")), refused: "sql"},
		{name: "copilot unmapped ask-client defers", client: "copilot", input: copilotSQL, unmapped: askClient, stdout: `{}`},
		{name: "opencode unmapped denied and recorded", client: "opencode", input: opencodeSkill, stdout: piBlock(unmappedReason("skill")), refused: "skill"},
		{name: "claude web fetch denied and recorded", client: "claude", input: claudeWebFetch, stdout: claudeDeny(unmappedReason("WebFetch")), refused: "WebFetch"},
		{name: "gemini web fetch denied and recorded", client: "gemini", input: geminiFetch, stdout: geminiDeny(unmappedReason("web_fetch")), refused: "web_fetch"},
		{name: "qwen web fetch denied and recorded", client: "qwen", input: qwenFetch, stdout: qwenDeny(unmappedReason("web_fetch")), refused: "web_fetch"},
		{name: "cline web fetch stops the run and is recorded", client: "cline", input: clineFetch,
			stdout: `{"cancel":true,"errorMessage":"` + unmappedReason("fetch_web_content") + `","contextModification":"` + unmappedReason("fetch_web_content") + `"}`, refused: "fetch_web_content"},
		{name: "opencode web fetch denied and recorded", client: "opencode", input: opencodeFetch, stdout: piBlock(unmappedReason("webfetch")), refused: "webfetch"},
		{name: "opencode custom tool denied and recorded", client: "opencode", input: opencodeCustom, stdout: piBlock(unmappedReason("deploy")), refused: "deploy"},
		{name: "opencode unmapped ask-client defers", client: "opencode", input: opencodeSkill, unmapped: askClient, stdout: `{"block":false}`},
		{name: "opencode unmapped with the daemon down", client: "opencode", input: opencodeSkill, down: true, stdout: piBlock(daemonDown)},
		{name: "unmapped with the daemon down", client: "claude", input: claudeSkill, down: true, stdout: claudeDeny(daemonDown)},
		{name: "unmapped ask-client with the daemon down", client: "claude", input: claudeSkill, unmapped: askClient, down: true, stdout: claudeDeny(daemonDown)},
		{name: "explicit deny", client: "gemini", input: geminiPlan, unmapped: devicepolicy.DenyTool,
			stdout: geminiDeny(unmappedReason("exit_plan_mode")), refused: "exit_plan_mode"},

		{name: "claude unmapped ask-client defers", client: "claude", input: claudeSkill, unmapped: askClient, stdout: `{}`},
		{name: "codex unmapped ask-client defers", client: "codex", input: codexImage, unmapped: askClient, stdout: ``},
		{name: "gemini unmapped ask-client defers", client: "gemini", input: geminiPlan, unmapped: askClient, stdout: `{}`},
		{name: "pi unmapped ask-client blocks", client: "pi", input: piDeploy, unmapped: askClient,
			stdout: piBlock(jsonText(`pathgrant: Pi has no permission flow of its own to leave this call to, so it is blocked (pi tool "deploy" is left to pi's own permission flow (unmapped_tools = "ask-client"))`))},
	}
	t.Run("every client is walked", func(t *testing.T) {
		for _, name := range hooks.Clients() {
			c, _ := hooks.LookupClient(name)
			var noFile, unmapped bool
			for _, tt := range tests {
				noFile = noFile || tt.client == name && tt.refused == "" && tt.unmapped == "" && tt.down
				unmapped = unmapped || tt.client == name && tt.refused != ""
			}
			switch {
			case c.NoOwnTools: // its events are shell commands, reads and MCP tools only
			case !unmapped:
				t.Errorf("%s: no case of a tool pathgrant cannot map", name)
			case len(c.NoFileTools) > 0 && !noFile:
				t.Errorf("%s: no case of a tool that touches no local file", name)
			}
		}
	})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := newDaemon(t, toolSettings("", tt.unmapped))
			sock := d.sock
			if tt.down {
				sock = d.root + "/nobody.sock"
			}
			got := runHook(t, tt.client, d.expand(tt.input), "PATHGRANT_SOCKET="+sock, "HOME="+d.home, "XDG_CONFIG_HOME=")
			want := strings.NewReplacer("$HOME", d.home, "$SOCK", sock).Replace(tt.stdout)
			if want != "" {
				want += "\n"
			}
			if got.stdout != want || got.exit != 0 || got.stderr != "" {
				t.Errorf("stdout %q exit %d stderr %q, want %q exit 0", got.stdout, got.exit, got.stderr, want)
			}
			recs, err := d.store.AuditRecords(grants.AuditFilter{Kind: grants.KindRefuse})
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tt.refused == "" && len(recs) > 0:
				t.Errorf("refusals recorded, want none: %+v", recs)
			case tt.refused != "" && (len(recs) != 1 || recs[0].Tool != tt.refused || recs[0].Agent != tt.client):
				t.Errorf("refusals %+v, want one of %s tool %q", recs, tt.client, tt.refused)
			}
			if p := d.srv.Engine().Pending(); len(p) != 0 {
				t.Errorf("approval requests pending: %+v", p)
			}
		})
	}
}

// TestSearchToolsSendTheirInput: the approval request a search tool
// raises carries the tool's own input, in words, for every client with
// search tools, with ~ for the hook's home folder.
func TestSearchToolsSendTheirInput(t *testing.T) {
	tests := []struct {
		client, input, want string
	}{
		{"claude", `{"session_id":"s1","cwd":"/home/user/work","hook_event_name":"PreToolUse","tool_name":"Grep","tool_input":{"pattern":"TODO","path":"/home/user/Downloads","glob":"*.csv"},"tool_use_id":"t1"}`,
			`pattern "TODO" in ~/Downloads, files "*.csv"`},
		{"claude", `{"session_id":"s1","cwd":"/home/user/work","hook_event_name":"PreToolUse","tool_name":"Glob","tool_input":{"pattern":"**/*.csv","path":"/home/user/Downloads"},"tool_use_id":"t1"}`,
			`glob "**/*.csv" in ~/Downloads`},
		{"gemini", `{"session_id":"s3","cwd":"/home/user/work","hook_event_name":"BeforeTool","tool_name":"grep_search","tool_input":{"pattern":"total","dir_path":"/home/user/Downloads"}}`,
			`pattern "total" in ~/Downloads`},
		{"gemini", `{"session_id":"s3","cwd":"/home/user/work","hook_event_name":"BeforeTool","tool_name":"glob","tool_input":{"pattern":"/home/user/Downloads/*.csv"}}`,
			`glob "/home/user/Downloads/*.csv"`},
		{"pi", `{"session_id":"s4","cwd":"/home/user/work","hook_event_name":"tool_call","tool_name":"grep","tool_call_id":"c1","input":{"pattern":"a,b","path":"/home/user/Downloads"}}`,
			`pattern "a,b" in ~/Downloads`},
		{"pi", `{"session_id":"s4","cwd":"/home/user/work","hook_event_name":"tool_call","tool_name":"find","tool_call_id":"c1","input":{"pattern":"*.csv","path":"/home/user/Downloads"}}`,
			`glob "*.csv" in ~/Downloads`},
		{"droid", `{"session_id":"s7","cwd":"/home/user/work","hook_event_name":"PreToolUse","tool_name":"Glob","tool_input":{"patterns":["*.csv"],"folder":"/home/user/Downloads"}}`,
			`glob "*.csv" in ~/Downloads`},
		{"qwen", `{"session_id":"s6","cwd":"/home/user/work","hook_event_name":"PreToolUse","tool_name":"grep_search","tool_input":{"pattern":"total","path":"/home/user/Downloads"}}`,
			`pattern "total" in ~/Downloads`},
		{"copilot", `{"sessionId":"s5","cwd":"/home/user/work","toolName":"grep","toolArgs":{"pattern":"total","paths":["/home/user/Downloads"]}}`,
			`pattern "total" in ~/Downloads`},
		{"copilot", `{"sessionId":"s5","cwd":"/home/user/work","toolName":"glob","toolArgs":{"pattern":"**/*.csv","paths":["/home/user/Downloads"]}}`,
			`glob "**/*.csv" in ~/Downloads`},
		{"claude", `{"session_id":"s1","cwd":"/home/user/work","hook_event_name":"PreToolUse","tool_name":"Grep","tool_input":{"pattern":"1,2","path":"/home/user/Downloads/report.csv"},"tool_use_id":"t1"}`,
			`pattern "1,2" in ~/Downloads/report.csv`},
	}
	for _, tt := range tests {
		t.Run(tt.client+"/"+tt.want, func(t *testing.T) {
			t.Parallel()
			d := newDaemon(t)
			input := d.expand(tt.input)
			want := strings.ReplaceAll(tt.want, "/home/user", d.home) // a pattern holding the home is shown as the agent wrote it
			got := runHook(t, tt.client, input, "PATHGRANT_SOCKET="+d.sock, "PATHGRANT_WAIT_MS=0", "HOME="+d.home, "XDG_CONFIG_HOME=")
			if got.exit != 0 || !strings.Contains(got.stdout, "needs the person's approval") {
				t.Fatalf("stdout %q exit %d stderr %q, want a pending denial", got.stdout, got.exit, got.stderr)
			}
			p := d.srv.Engine().Pending()
			if len(p) != 1 || p[0].Input != want {
				t.Fatalf("pending %+v, want one request with input %q", p, want)
			}
			if strings.Contains(p[0].Command, "ls -R") {
				t.Errorf("the request shows the invented command %q", p[0].Command)
			}
		})
	}
}
