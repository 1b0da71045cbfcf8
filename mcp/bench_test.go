package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"pathgrant/apiclient"
	"pathgrant/guard"
	"pathgrant/hooks"
	"pathgrant/ipc"
	"pathgrant/ipc/ipctest"
	"pathgrant/mcp"
)

// BenchmarkReadBridgeVsHook compares, against one real daemon on a real
// socket, an allowed read_file through the MCP bridge end to end (SDK
// client → bridge → daemon → the file's bytes back) with the same read
// checked through the hook path (Claude Code's Read payload: in process,
// and as the pathgrant-hook binary the client runs). Both act for the
// same hook-only session, bound to this process's agent.
func BenchmarkReadBridgeVsHook(b *testing.B) {
	root, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	home, work := root+"/home", root+"/home/work"
	if err := os.MkdirAll(work, 0o700); err != nil {
		b.Fatal(err)
	}
	file := work + "/report.csv"
	if err := os.WriteFile(file, bytes.Repeat([]byte("id,value\n"), 100), 0o600); err != nil {
		b.Fatal(err)
	}
	sock := root + "/run/pg.sock"
	srv := ipc.New(ipc.Config{HooksBelow: true, Store: ipctest.OpenStore(b, root+"/store.db"), Home: home, Logger: ipctest.Quiet,
		Device: guard.DevicePolicy{EligibleReadOnly: []string{home + "/Downloads"}}})
	ipctest.Serve(b, srv, sock)
	payload := func(session string) string {
		data, _ := json.Marshal(map[string]any{"session_id": session, "cwd": work, "hook_event_name": "PreToolUse",
			"tool_name": "Read", "tool_input": map[string]any{"file_path": file}, "tool_use_id": "t1"})
		return string(data)
	}
	env := map[string]string{"HOME": home, "PATHGRANT_SOCKET": sock}
	getenv := func(k string) string { return env[k] }
	hook := func(b *testing.B, session string) {
		res := hooks.Run(context.Background(), hooks.Options{Client: "claude", Stdin: strings.NewReader(payload(session)), Getenv: getenv})
		if !res.Verdict.Allow {
			b.Fatalf("hook: %+v %v", res.Verdict, res.Err)
		}
	}
	hook(b, "bench-session") // registers the hook-only session, bound to this process's agent

	b.Run("bridge", func(b *testing.B) {
		caller := apiclient.New(sock)
		defer caller.CloseIdle()
		cs := connectB(b, mcp.Options{Caller: caller, AgentProcess: true, Logger: ipctest.Quiet})
		args := map[string]any{"path": file}
		for b.Loop() {
			res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "read_file", Arguments: args})
			if err != nil || res.IsError {
				b.Fatalf("read_file: %v %+v", err, res)
			}
		}
	})
	b.Run("hook in process", func(b *testing.B) {
		for b.Loop() {
			hook(b, "bench-session")
		}
	})
	b.Run("hook binary", func(b *testing.B) {
		bin := filepath.Join(root, "pathgrant-hook")
		build := exec.Command("go", "build", "-o", bin, "pathgrant/cmd/pathgrant-hook")
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := build.CombinedOutput(); err != nil {
			b.Fatalf("build the hook: %v\n%s", err, out)
		}
		in := payload("bench-session-binary")
		for b.Loop() {
			cmd := exec.Command(bin, "claude")
			cmd.Env = []string{"HOME=" + home, "PATHGRANT_SOCKET=" + sock}
			cmd.Stdin = strings.NewReader(in)
			out, err := cmd.Output()
			if err != nil || strings.Contains(string(out), `"deny"`) {
				b.Fatalf("pathgrant-hook: %v %s", err, out)
			}
		}
	})
}

// connectB is connect for a benchmark.
func connectB(b *testing.B, o mcp.Options) *sdk.ClientSession {
	b.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	st, ct := sdk.NewInMemoryTransports()
	ss, err := mcp.NewServer(o).Connect(ctx, st, nil)
	if err != nil {
		b.Fatal(err)
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cs.Close(); ss.Wait(); cancel() })
	return cs
}
