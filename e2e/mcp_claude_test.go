package e2e

import (
	"context"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"pathgrant/grants"
	"pathgrant/ipc/ipctest"
	"pathgrant/wire"
)

// TestMCPClaudeCode is the case pathgrant comes from, end to end with the
// real Claude Code: `pathgrant mcp` registered as its MCP server
// pathgrant (by install-mcp) and the hooks installed too, so the bridge
// and the hooks act for one session, the one bound to the Claude
// process. The bridge's cat of a Downloads file goes pending, is approved
// for the session over the socket, and the file's bytes reach the model;
// Claude's own Read of the same file is then allowed by that grant; a
// copy into Downloads through the bridge is refused, and so is a read of
// a private key, which is never offered for approval.
func TestMCPClaudeCode(t *testing.T) {
	if testing.Short() {
		t.Skip("real agent clients are not run in -short mode")
	}
	claude := agentsClient(t, "Claude Code", "@anthropic-ai/claude-code/bin/claude.exe")
	e := newAgentsEnv(t)
	agentsWrite(t, e.home+"/.ssh/id_rsa", []byte("PRIVATE KEY\n"))
	e.pathgrant("install-hooks", "claude", "--hook", e.hook, "--socket", e.sock)
	if out := e.pathgrant("install-mcp", "claude", "--socket", e.sock); !strings.Contains(out, "registered the pathgrant MCP server for claude in "+e.home+"/.claude.json") {
		t.Fatalf("install-mcp: %s", out)
	}

	api := &fakeAnthropic{}
	srv := httptest.NewServer(api)
	defer srv.Close()
	env := e.baseEnv("ANTHROPIC_BASE_URL="+srv.URL, "ANTHROPIC_API_KEY=sk-ant-e2e", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1")
	report := e.dl + "/report.csv"
	api.script(
		anthropicReply{tool: "mcp__pathgrant__execute_shell_command", input: map[string]any{"command": "cat ~/Downloads/report.csv"}},
		anthropicReply{tool: "Read", input: map[string]any{"file_path": report}},
		anthropicReply{tool: "mcp__pathgrant__execute_shell_command", input: map[string]any{"command": "cp ~/Downloads/report.csv ~/Downloads/copy.csv"}},
		anthropicReply{tool: "mcp__pathgrant__read_file", input: map[string]any{"path": "~/.ssh/id_rsa"}},
		anthropicReply{text: "done"},
	)
	run := startAgent(t, e.work, env, claude, "-p", "Summarise ~/Downloads/report.csv", "--model", "claude-sonnet-4-5")
	req := e.awaitPending(run, report)
	if req.Agent != "claude" || req.Tool != "execute_shell_command" || req.Op != "read" {
		t.Errorf("approval request %+v", req)
	}
	if _, err := e.client.Decide(context.Background(), req.ID, wire.Decision{Scope: "session", Code: ipctest.LogCode(t, e.log, req.ID, "session")}); err != nil {
		t.Fatalf("approve for the session from outside the agent: %v\n%s", err, e.log())
	}
	out := run.wait(t)
	lines := strings.Split(strings.TrimSpace(string(e.report)), "\n")
	tests := []struct {
		name, id  string
		isError   bool
		has       []string
		notExists string
	}{
		{name: "the bridge's cat returns the file after the approval", id: toolUseID(1), has: lines},
		{name: "Claude's own Read is allowed by the same session's grant", id: toolUseID(2), has: lines},
		{name: "a copy into Downloads is refused", id: toolUseID(3), isError: true, has: []string{"pathgrant denied execute_shell_command"},
			notExists: e.dl + "/copy.csv"},
		{name: "a private key is refused and not offered", id: toolUseID(4), isError: true, has: []string{"pathgrant denied read_file"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			content, isError, ok := api.toolResult(tt.id)
			if !ok || isError != tt.isError {
				t.Fatalf("tool result %q (error %v, sent %v); claude said:\n%s\ndaemon:\n%s", content, isError, ok, out, e.log())
			}
			t.Logf("tool result %q", content)
			for _, h := range tt.has {
				if !strings.Contains(content, h) {
					t.Errorf("tool result lacks %q:\n%s", h, content)
				}
			}
			if strings.Contains(content, "PRIVATE KEY") || strings.Contains(content, "approval request") && tt.isError {
				t.Errorf("a refused call leaked or offered something:\n%s", content)
			}
			if tt.notExists != "" {
				if _, err := os.Stat(tt.notExists); err == nil {
					t.Errorf("%s was created", tt.notExists)
				}
			}
		})
	}
	if reqs, _ := e.client.Pending(context.Background()); len(reqs) != 0 {
		t.Errorf("still pending: %+v", reqs)
	}
	sessions := map[string]bool{}
	recs, _ := e.client.Audit(context.Background(), grants.AuditFilter{Kind: grants.KindTool})
	for _, r := range recs {
		sessions[r.Session] = true
	}
	if len(sessions) != 1 || !sessions[req.Session] {
		t.Errorf("tool calls audited for sessions %v, want only %s", sessions, req.Session)
	}
	e.pathgrant("install-mcp", "claude", "--uninstall")
}
