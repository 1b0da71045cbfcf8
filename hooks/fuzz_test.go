package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"pathgrant/wire"
)

// FuzzRun feeds arbitrary hook input to every adapter with no daemon to
// ask. Whatever the input, the hook must answer in a form its client takes
// (JSON on stdout with exit 0, or exit 2 with a reason on stderr) and must
// never allow anything but a tool listed as touching no files, or one of
// pathgrant's own MCP tools (its bridge checks each call).
func FuzzRun(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/*.json")
	for _, s := range seeds {
		if data, err := os.ReadFile(s); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(`{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"x"}}`))
	f.Add([]byte(`{"hook_event_name":"tool_call","tool_name":"read","input":{"path":"a"}}`))
	f.Add([]byte(`{`))
	sock := filepath.Join(f.TempDir(), "nobody.sock")
	f.Fuzz(func(t *testing.T, input []byte) {
		for _, client := range Clients() {
			res := Run(context.Background(), Options{Client: client, Stdin: bytes.NewReader(input), Socket: sock,
				Getenv: func(string) string { return "" }})
			switch res.Exit {
			case 2:
				if len(res.Stdout) != 0 || res.Stderr == "" {
					t.Fatalf("%s: exit 2 with stdout %q stderr %q", client, res.Stdout, res.Stderr)
				}
				continue
			case 0:
			default:
				t.Fatalf("%s: exit %d", client, res.Exit)
			}
			if len(res.Stdout) > 0 && !json.Valid(res.Stdout) {
				t.Fatalf("%s: stdout %q is not JSON", client, res.Stdout)
			}
			if res.Verdict.Allow && !res.Call.NoFiles && !res.Call.Bridge { // the bridge checks its own calls
				t.Fatalf("%s: allowed with no daemon: %+v for %q", client, res.Call, input)
			}
			said := bytes.Contains(res.Stdout, []byte("pathgrant: ")) || bytes.Contains(res.Stdout, []byte(wire.StartHint))
			if !res.Verdict.Allow && !res.Verdict.Defer && !said {
				t.Fatalf("%s: a deny without a reason: %q", client, res.Stdout)
			}
		}
	})
}
