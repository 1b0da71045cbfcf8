package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"pathgrant/apiclient"
	"pathgrant/engine"
	"pathgrant/hooks"
	"pathgrant/mcp"
	"pathgrant/sandbox/frontend"
	"pathgrant/wire"
)

// downFixtures is one hook input per client that asks the daemon (a read
// outside the workspace), from hooks/testdata: a client without one fails
// TestNotRunningNamesTheFix.
var downFixtures = map[string]string{
	"claude":   "claude-code-2.1.328-pretooluse-read.json",
	"cline":    "cline-3.0.65-pretooluse-read_files.json",
	"codex":    "codex-pretooluse-bash-downloads.json",
	"copilot":  "copilot-1.0.102-pretooluse-view.json",
	"cursor":   "cursor-beforereadfile-downloads.json",
	"droid":    "droid-0.225.2-pretooluse-read.json",
	"gemini":   "gemini-cli-0.61.0-beforetool-read_file.json",
	"opencode": "opencode-1.18.33-read-downloads.json",
	"pi":       "pi-tool_call-read-downloads.json",
	"qwen":     "qwen-code-0.24.4-pretooluse-read_file.json",
}

// downRun is one client's call with nothing on the socket: what the agent
// (or the person) reads, and whether the call was refused.
type downRun func(t *testing.T, home, sock string) (said string, refused bool)

// TestNotRunningNamesTheFix: with no daemon on the socket, every client of
// the hooks table and every door an agent's command takes (and the CLI's
// own calls) tells, in the one line of wire.NotRunning, how to start
// pathgrant, and still refuses the call: fail closed.
func TestNotRunningNamesTheFix(t *testing.T) {
	rows := map[string]downRun{}
	for _, client := range hooks.Clients() {
		fixture, ok := downFixtures[client]
		if !ok {
			t.Errorf("client %s has no hook input in downFixtures", client)
			continue
		}
		rows["hook "+client] = hookDown(client, fixture)
	}
	doors := doorsDown()
	for _, d := range engine.Doors() {
		run, ok := doors[d]
		switch {
		case !ok:
			t.Errorf("door %q has no row in doorsDown", d)
		case run != nil:
			rows["door "+string(d)] = run
		}
	}
	rows["pathgrant run"] = cliDown("run", "--", "true")
	rows["pathgrant pending"] = cliDown("pending")
	for name, run := range rows {
		t.Run(name, func(t *testing.T) {
			home := t.TempDir()
			sock := filepath.Join(home, "nobody.sock")
			said, refused := run(t, home, sock)
			if want := wire.NotRunning(sock); !strings.Contains(said, want) {
				t.Errorf("said %q, want the line %q", said, want)
			}
			if !strings.Contains(said, "`pathgrant serve`") || !strings.Contains(said, "`pathgrant install-desktop`") {
				t.Errorf("said %q: names no command that starts pathgrant", said)
			}
			if !refused {
				t.Errorf("the call was not refused: %q", said)
			}
		})
	}
}

// hookDown runs the client's hook in process on the fixture.
func hookDown(client, fixture string) downRun {
	return func(t *testing.T, home, sock string) (string, bool) {
		data, err := os.ReadFile(filepath.Join("..", "hooks", "testdata", fixture))
		if err != nil {
			t.Fatal(err)
		}
		input := strings.ReplaceAll(string(data), "$HOME", home)
		getenv := func(k string) string {
			if k == "HOME" {
				return home
			}
			return ""
		}
		res := hooks.Run(context.Background(), hooks.Options{Client: client, Stdin: strings.NewReader(input), Socket: sock, Getenv: getenv})
		return string(res.Stdout) + res.Stderr, !res.Verdict.Allow && !res.Verdict.Granted && res.Verdict.Rewrite == nil
	}
}

// doorsDown is how each door meets a daemon that is not there; the
// in-process door does not go through the socket.
func doorsDown() map[engine.Door]downRun {
	return map[engine.Door]downRun{
		engine.DoorHook: func(t *testing.T, home, sock string) (string, bool) {
			var stderr bytes.Buffer
			code := frontend.Exec(sock, "capability", []string{"true"}, &stderr)
			return stderr.String(), code != 0
		},
		engine.DoorExecSession: cliDown("exec", "--session", "s1", "--", "true"),
		engine.DoorToolRoute: func(t *testing.T, home, sock string) (string, bool) {
			return toolDown(apiclient.New(sock))
		},
		engine.DoorSessionTool: func(t *testing.T, home, sock string) (string, bool) {
			return toolDown(apiclient.ForSession(sock, "s1", "token"))
		},
		engine.DoorMCP:       mcpDown,
		engine.DoorInProcess: nil, // in the daemon's own process: no socket to miss
	}
}

func toolDown(c *apiclient.Client) (string, bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := c.Tool(ctx, "read_file", wire.ToolRequest{Args: []byte(`{"path":"x"}`)})
	if err == nil {
		return "", false
	}
	return err.Error(), true
}

// mcpDown calls a tool through the MCP bridge, as the agent's client does.
func mcpDown(t *testing.T, home, sock string) (string, bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	st, ct := sdk.NewInMemoryTransports()
	ss, err := mcp.NewServer(mcp.Options{Caller: apiclient.New(sock), AgentProcess: true}).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "read_file", Arguments: map[string]any{"path": "x"}})
	if err != nil {
		t.Fatal(err)
	}
	var said strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			said.WriteString(tc.Text)
		}
	}
	return said.String(), res.IsError
}

// cliDown runs a pathgrant command on the socket.
func cliDown(args ...string) downRun {
	return func(t *testing.T, home, sock string) (string, bool) {
		code, stdout, stderr := runCLI(append([]string{args[0], "--socket", sock}, args[1:]...)...)
		return stdout + stderr, code != 0
	}
}
