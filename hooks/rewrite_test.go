package hooks_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"pathgrant/apiclient"
	"pathgrant/appdirs"
	"pathgrant/devicepolicy"
	"pathgrant/guard"
	"pathgrant/hooks"
	"pathgrant/ipc"
	"pathgrant/ipc/ipctest"
	"pathgrant/wire"
)

// confiningDaemon is a daemon on a machine whose confinement is level,
// with confinement on or off in the device policy file.
func confiningDaemon(t *testing.T, level string, on bool) *daemon {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	d := &daemon{t: t, root: root, home: root + "/home"}
	d.work, d.dl, d.sock = d.home+"/work", d.home+"/Downloads", root+"/run/pathgrant.sock"
	for _, f := range []string{d.work + "/main.go", d.dl + "/report.csv"} {
		writeFile(t, f, "a,b\n")
	}
	d.store = ipctest.OpenStore(t, root+"/state/pathgrant.db")
	d.srv = ipc.New(ipc.Config{HooksBelow: true, Store: d.store, Home: d.home, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Device:      guard.DevicePolicy{EligibleReadOnly: []string{d.dl}, Protected: []string{root + "/state", root + "/run"}},
		Confinement: wire.Level(level), DeviceFile: func() devicepolicy.Policy { return devicepolicy.Policy{Confinement: on} }})
	ipctest.Serve(t, d.srv, d.sock)
	d.client = apiclient.New(d.sock)
	return d
}

const fakeBin = "/opt/pathgrant dir/pathgrant"

// shellInputs are each client's shell tool call of cmd in d's workspace.
func shellInput(d *daemon, client, cmd string) string {
	q, _ := json.Marshal(cmd)
	switch client {
	case "cline":
		return `{"hookName":"tool_call","taskId":"t","sessionContext":{"rootSessionId":"cl-1"},"workspaceRoots":["` + d.work +
			`"],"workspaceInfo":{"rootPath":"` + d.work + `"},"tool_call":{"id":"c1","name":"run_commands","input":{"commands":[` + string(q) + `]}}}`
	case "droid":
		return `{"session_id":"d-1","cwd":"` + d.work + `","hook_event_name":"PreToolUse","tool_name":"Execute",` +
			`"tool_input":{"command":` + string(q) + `,"riskLevel":"low"}}`
	case "claude", "codex":
		return `{"session_id":"` + client + `-1","cwd":"` + d.work + `","hook_event_name":"PreToolUse","tool_name":"Bash",` +
			`"tool_input":{"command":` + string(q) + `,"description":"list"},"tool_use_id":"t1"}`
	case "gemini":
		return `{"session_id":"g-1","cwd":"` + d.work + `","hook_event_name":"BeforeTool","tool_name":"run_shell_command",` +
			`"tool_input":{"command":` + string(q) + `}}`
	case "pi":
		return `{"hook_event_name":"tool_call","session_id":"p-1","cwd":"` + d.work + `","tool_name":"bash","tool_call_id":"c1",` +
			`"input":{"command":` + string(q) + `}}`
	case "opencode":
		return `{"hook_event_name":"tool.execute.before","session_id":"opencode-1","cwd":"` + d.work + `","worktree":"` + d.work +
			`","tool_name":"bash","call_id":"c1","args":{"command":` + string(q) + `,"timeout":120000},"mcp_servers":null}`
	case "qwen":
		return `{"session_id":"q-1","cwd":"` + d.work + `","hook_event_name":"PreToolUse","tool_name":"run_shell_command",` +
			`"tool_input":{"command":` + string(q) + `},"tool_use_id":"t1"}`
	case "copilot":
		return `{"sessionId":"cp-1","timestamp":1,"cwd":"` + d.work + `","toolName":"bash","toolArgs":{"command":` + string(q) + `,"description":"list"}}`
	case "cursor":
		return `{"hook_event_name":"beforeShellExecution","conversation_id":"cu-1","generation_id":"g","command":` + string(q) +
			`,"cwd":"` + d.work + `","workspace_roots":["` + d.work + `"]}`
	}
	panic(client)
}

// rewritten is the command a client's hook answer runs instead, "" for
// none, and whether the answer allows.
func rewritten(t *testing.T, client string, stdout []byte) (cmd string, allow bool) {
	t.Helper()
	var out struct {
		Decision   string         `json:"decision"`
		Permission string         `json:"permission"`
		Block      *bool          `json:"block"`
		Command    string         `json:"command"`
		Modified   map[string]any `json:"modifiedArgs"`
		Override   map[string]any `json:"overrideInput"`
		Copilot    string         `json:"permissionDecision"`
		Hook       struct {
			Decision  string         `json:"permissionDecision"`
			Updated   map[string]any `json:"updatedInput"`
			ToolInput map[string]any `json:"tool_input"`
		} `json:"hookSpecificOutput"`
	}
	if len(stdout) > 0 && json.Unmarshal(stdout, &out) != nil {
		t.Fatalf("stdout is not JSON: %s", stdout)
	}
	switch client {
	case "claude", "codex", "droid":
		c, _ := out.Hook.Updated["command"].(string)
		return c, out.Hook.Decision == "allow" || (len(stdout) == 0 || string(stdout) == "{}\n")
	case "gemini":
		c, _ := out.Hook.ToolInput["command"].(string)
		return c, out.Decision == "allow"
	case "pi", "opencode":
		return out.Command, out.Block != nil && !*out.Block
	case "cline": // an overrideInput with commands; one without is a deny
		cmds, _ := out.Override["commands"].([]any)
		if len(cmds) == 1 {
			c, _ := cmds[0].(string)
			return c, true
		}
		return "", out.Override == nil
	case "qwen": // Qwen Code cannot rewrite: no decision, or a deny
		return "", out.Decision != "deny"
	case "copilot": // no decision, or args modified without one: Copilot's own flow then decides
		c, _ := out.Modified["command"].(string)
		return c, out.Copilot == "allow" || out.Copilot == "" && len(stdout) > 0
	}
	return "", out.Permission == "allow"
}

// TestConfinedByDefault: with no environment switch, an allowed shell
// command comes back rewritten to run under `pathgrant exec` with a
// capability, on every client that can rewrite; Cursor cannot, and says
// so; confinement off or unsupported rewrites nothing and says
// UNCONFINED; a denied command is not rewritten.
func TestConfinedByDefault(t *testing.T) {
	tests := []struct {
		name, client, level string
		on                  bool
		cmd                 string
		wantWrap, wantAllow bool
		reason              string // in the verdict's reason
	}{
		{"claude", "claude", "bwrap+landlock", true, "ls -la 'my dir'", true, true, "runs confined"},
		{"codex", "codex", "bwrap+landlock", true, "ls -la 'my dir'", true, true, "runs confined"},
		{"gemini", "gemini", "bwrap+landlock", true, "ls -la 'my dir'", true, true, "runs confined"},
		{"pi", "pi", "landlock", true, "ls -la 'my dir'", true, true, "runs confined"},
		{"opencode", "opencode", "landlock", true, "ls -la 'my dir'", true, true, "runs confined"},
		{"opencode, confinement off", "opencode", "bwrap+landlock", false, "ls", false, true, "UNCONFINED"},
		{"copilot", "copilot", "bwrap+landlock", true, "ls -la 'my dir'", true, true, "runs confined"},
		{"droid", "droid", "bwrap+landlock", true, "ls -la 'my dir'", true, true, "runs confined"},
		{"cline", "cline", "bwrap+landlock", true, "ls -la 'my dir'", true, true, "runs confined"},
		{"cursor cannot rewrite: refused", "cursor", "bwrap+landlock", true, "ls", false, false, "Cursor cannot hand a shell command to pathgrant"},
		{"qwen cannot rewrite: refused", "qwen", "bwrap+landlock", true, "sh ./build.sh", false, false, "execute_shell_command (pathgrant install-mcp qwen)"},
		{"qwen, confinement off", "qwen", "bwrap+landlock", false, "ls", false, true, "UNCONFINED"},
		{"confinement off", "claude", "bwrap+landlock", false, "ls", false, true, "UNCONFINED"},
		{"machine cannot confine", "gemini", "none", true, "ls", false, true, "UNCONFINED"},
		{"denied command", "claude", "bwrap+landlock", true, "cat ~/.ssh/id_ed25519", false, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := confiningDaemon(t, tt.level, tt.on)
			env := map[string]string{appdirs.WaitEnv: "0", "HOME": d.home}
			res := hooks.Run(context.Background(), hooks.Options{Client: tt.client, Stdin: strings.NewReader(shellInput(d, tt.client, tt.cmd)),
				Socket: d.sock, Getenv: func(k string) string { return env[k] }, ExecBinary: func() (string, error) { return fakeBin, nil }})
			got, allow := rewritten(t, tt.client, res.Stdout)
			if allow != tt.wantAllow {
				t.Fatalf("allow %v, want %v (stdout %s)", allow, tt.wantAllow, res.Stdout)
			}
			if (got != "") != tt.wantWrap {
				t.Fatalf("rewritten %q, want a rewrite: %v (stdout %s)", got, tt.wantWrap, res.Stdout)
			}
			if !strings.Contains(res.Verdict.Reason, tt.reason) {
				t.Errorf("reason %q does not contain %q", res.Verdict.Reason, tt.reason)
			}
			if !tt.wantWrap {
				return
			}
			argv := shellWords(t, got)
			if len(argv) != 8 || !strings.HasPrefix(argv[0], wire.CapEnv+"=") || len(argv[0]) < len(wire.CapEnv)+40 ||
				argv[1] != appdirs.SocketEnv+"="+d.sock || // the socket the hook asked, not exec's default
				argv[2] != fakeBin || strings.Join(argv[3:7], " ") != "exec -- bash -c" || argv[7] != tt.cmd {
				t.Errorf("rewritten %q splits into %q", got, argv)
			}
			if tt.client == "claude" && !strings.Contains(string(res.Stdout), `"description":"list"`) {
				t.Errorf("other input fields lost: %s", res.Stdout)
			}
		})
	}
}

// shellWords has bash split s into its words, without running it.
func shellWords(t *testing.T, s string) []string {
	t.Helper()
	out, err := exec.Command("bash", "-c", `set -- `+s+`; printf '%s\0' "$@"`).Output()
	if err != nil {
		t.Fatalf("bash cannot split %q: %v", s, err)
	}
	return strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
}

// TestConfineNoBinary: where the command must run confined and no
// pathgrant binary can be found, the call is denied, never let through.
func TestConfineNoBinary(t *testing.T) {
	d := confiningDaemon(t, "bwrap+landlock", true)
	env := map[string]string{appdirs.WaitEnv: "0"}
	res := hooks.Run(context.Background(), hooks.Options{Client: "claude", Stdin: strings.NewReader(shellInput(d, "claude", "ls")),
		Socket: d.sock, Getenv: func(k string) string { return env[k] },
		ExecBinary: func() (string, error) { return "", os.ErrNotExist }})
	if res.Verdict.Allow || !strings.Contains(string(res.Stdout), `"deny"`) {
		t.Errorf("verdict %+v stdout %s; want a deny", res.Verdict, res.Stdout)
	}
}
