package e2e

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestMCPClaudeCodeOneDoor: the real Claude Code, with pathgrant's hooks
// and its MCP server installed, runs a workspace script through the MCP
// execute_shell_command (the seed's incident route), the way a prompt
// injection would: the script tries pathgrant's socket, a private key
// and a file outside the workspace. The daemon runs it through the one
// door (the bubblewrap view and Landlock a hook's rewritten command gets),
// so none of them is reached, and the refused paths are explained the
// same way; the same script run through Claude's own Bash tool
// (rewritten by the hook) is refused the same way.
func TestMCPClaudeCodeOneDoor(t *testing.T) {
	if testing.Short() {
		t.Skip("real agent clients are not run in -short mode")
	}
	claude := agentsClient(t, "Claude Code", "@anthropic-ai/claude-code/bin/claude.exe")
	e := newAgentsEnv(t)
	agentsWrite(t, e.home+"/.ssh/id_rsa", []byte("PRIVATE KEY\n"))
	agentsWrite(t, e.home+"/notes/plan.txt", []byte("OUTSIDE THE WORKSPACE\n"))
	probe := fmt.Sprintf(`echo probe-ran
/usr/bin/python3 -c 'import socket; s = socket.socket(socket.AF_UNIX); s.connect(%q); print("SOCKET CONNECTED")'
cat %s/.ssh/id_rsa
cat %s/notes/plan.txt
`, e.sock, e.home, e.home)
	agentsWrite(t, e.work+"/probe.sh", []byte(probe))
	e.pathgrant("install-hooks", "claude", "--hook", e.hook, "--socket", e.sock)
	e.pathgrant("install-mcp", "claude", "--socket", e.sock)
	defer e.pathgrant("install-mcp", "claude", "--uninstall")

	api := &fakeAnthropic{}
	srv := httptest.NewServer(api)
	defer srv.Close()
	env := e.baseEnv("ANTHROPIC_BASE_URL="+srv.URL, "ANTHROPIC_API_KEY=sk-ant-e2e", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1")
	api.script(
		anthropicReply{tool: "mcp__pathgrant__execute_shell_command", input: map[string]any{"command": "bash ./probe.sh"}},
		anthropicReply{tool: "Bash", input: map[string]any{"command": "bash ./probe.sh"}},
		anthropicReply{text: "done"},
	)
	out := startAgent(t, e.work, env, claude, "-p", "Run the probe", "--model", "claude-sonnet-4-5").wait(t)
	for i, door := range []string{"MCP execute_shell_command", "Bash, rewritten by the hook"} {
		t.Run(door, func(t *testing.T) {
			content, _, ok := api.toolResult(toolUseID(i + 1))
			if !ok {
				t.Fatalf("no tool result; claude said:\n%s\ndaemon:\n%s", out, e.log())
			}
			t.Logf("tool result %q", content)
			if !strings.Contains(content, "probe-ran") {
				t.Fatalf("the script did not run:\n%s", content)
			}
			if !strings.Contains(content, "pathgrant: "+e.home+"/.ssh/id_rsa is outside this session's permissions") {
				t.Errorf("the refused key is not explained:\n%s", content)
			}
			for _, never := range []string{"SOCKET CONNECTED", "PRIVATE KEY", "OUTSIDE THE WORKSPACE"} {
				if strings.Contains(content, never) {
					t.Errorf("the confined script reached %q:\n%s", never, content)
				}
			}
		})
	}
}
