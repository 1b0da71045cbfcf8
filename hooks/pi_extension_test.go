package hooks_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"pathgrant/hooks/clientconfig"
)

// piDriver loads the shipped Pi extension the way Pi does (a default
// export given the extension API), registers its tool_call handler, and
// calls it for each case with a Pi-like context, printing the results.
// The extension is plain JavaScript, so node runs it without Pi.
const piDriver = `
import ext from "./pathgrant.mjs";
let handler;
ext({ on: (event, fn) => { if (event === "tool_call") handler = fn; } });
const ctx = { cwd: process.argv[2], sessionManager: { getSessionId: () => process.argv[4] } };
const out = [];
for (const c of JSON.parse(process.argv[3])) {
  out.push((await handler({ toolName: c.tool, toolCallId: "call-1", input: c.input }, ctx)) ?? null);
}
console.log(JSON.stringify(out));
`

type piCase struct {
	Tool  string         `json:"tool"`
	Input map[string]any `json:"input"`
}

type piResult struct {
	Block  bool   `json:"block"`
	Reason string `json:"reason"`
}

// runPiExtension runs the extension (hook command argv) on the cases in a
// node process, which plays the agent (with Pi session id session).
func runPiExtension(t *testing.T, argv []string, cwd, session string, cases []piCase, env ...string) []*piResult {
	t.Helper()
	res, err := piExtension(t, argv, cwd, session, cases, env...)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func piExtension(t *testing.T, argv []string, cwd, session string, cases []piCase, env ...string) ([]*piResult, error) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the Pi extension cannot be run")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "pathgrant.mjs"), []byte(clientconfig.PiExtensionFor(argv)), 0o600); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "driver.mjs"), []byte(piDriver), 0o600); err != nil {
		return nil, err
	}
	data, _ := json.Marshal(cases)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join(dir, "driver.mjs"), cwd, string(data), session)
	cmd.Env = append(hookEnv(), env...)
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("node: %v\n%s", err, out)
	}
	var res []*piResult
	if err := json.Unmarshal(out, &res); err != nil {
		return nil, fmt.Errorf("driver output %q: %v", out, err)
	}
	return res, nil
}

func TestPiExtension(t *testing.T) {
	d := newDaemon(t)
	hook := []string{hookBin, "pi", "--socket", d.sock}
	cases := []piCase{
		{"read", map[string]any{"path": "main.go"}},
		{"bash", map[string]any{"command": "cat main.go"}},
		{"read", map[string]any{"path": d.dl + "/report.csv"}},
		{"write", map[string]any{"path": d.dl + "/summary.txt", "content": "x"}},
		{"deploy", map[string]any{}},
	}
	got := runPiExtension(t, hook, d.work, "pi-session-1", cases, "PATHGRANT_WAIT_MS=0")
	want := []*piResult{
		nil, nil,
		{true, pendingRead},
		{true, "pathgrant: write " + d.dl + "/summary.txt is outside the workspace, and write outside it is never offered for approval"},
		{true, unmappedText("deploy")},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d results, want %d", len(got), len(want))
	}
	for i := range want {
		if (got[i] == nil) != (want[i] == nil) || got[i] != nil && *got[i] != *want[i] {
			t.Errorf("%s %v: got %+v, want %+v", cases[i].Tool, cases[i].Input, got[i], want[i])
		}
	}

	t.Run("approved while the hook waits", func(t *testing.T) {
		type outcome struct {
			res []*piResult
			err error
		}
		done := make(chan outcome, 1)
		go func() {
			res, err := piExtension(t, hook, d.work, "pi-session-2", []piCase{{"read", map[string]any{"path": d.dl + "/other.csv"}}}, "PATHGRANT_WAIT_MS=20000")
			done <- outcome{res, err}
		}()
		writeFile(t, d.dl+"/other.csv", "x")
		d.approveOnce(t, "/other.csv")
		if o := <-done; o.err != nil || len(o.res) != 1 || o.res[0] != nil {
			t.Errorf("after approval: %+v %v", o.res, o.err)
		}
	})

	t.Run("fails closed", func(t *testing.T) {
		for name, argv := range map[string][]string{
			"hook missing": {filepath.Join(t.TempDir(), "no-such-hook"), "pi"},
			"daemon down":  {hookBin, "pi", "--socket", d.root + "/nobody.sock"},
			"hook crashes": {"/bin/sh", "-c", "exit 1"},
			"garbage":      {"/bin/echo", `{"block": "no"}`},
			"empty answer": {"/bin/true"},
		} {
			res := runPiExtension(t, argv, d.work, "pi-session-3", []piCase{{"read", map[string]any{"path": "main.go"}}})
			if len(res) != 1 || res[0] == nil || !res[0].Block || res[0].Reason == "" {
				t.Errorf("%s: %+v, want a block with a reason", name, res)
			}
		}
	})
}
