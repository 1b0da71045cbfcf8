package afterrun

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// padding is more entries than any bound the check ever had (200,000),
// made in a folder that sorts before .git, as an agent would pad a
// workspace to exhaust a bounded walk.
const padding = 200_010

// TestCheckHasNoBound: a plant behind more entries than any budget is
// found and neutralised; the person's git runs nothing.
func TestCheckHasNoBound(t *testing.T) {
	if testing.Short() {
		t.Skip("makes 200,010 files")
	}
	ws, mark := workspace(t)
	plan := Begin([]string{ws}, true)
	pad := filepath.Join(ws, ".a", "pad")
	if err := os.MkdirAll(pad, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := makeFiles(pad, padding); err != nil {
		t.Fatal(err)
	}
	run(t, ws, mark, `mkdir -p evil && cp -r .git/objects .git/refs evil/ && printf '[core]\n\tfsmonitor = "touch %s; false"\n' "$M" > evil/config && echo "$PWD/evil" > .git/commondir`)
	r, err := Check(plan)
	if err != nil {
		t.Fatal(err)
	}
	if r.Entries < padding {
		t.Fatalf("the walk saw %d entries, fewer than the %d made", r.Entries, padding)
	}
	PersonRunsGit(t, ws)
	if _, err := os.Stat(mark); err == nil {
		t.Fatalf("the person's git ran the plant; report:\n%s", strings.Join(r.Lines(), "\n"))
	}
}

// makeFiles makes n empty files in dir.
func makeFiles(dir string, n int) error {
	for i := range n {
		f, err := os.OpenFile(filepath.Join(dir, fmt.Sprintf("f%07d", i)), os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			return err
		}
		f.Close()
	}
	return nil
}

// TestCheckFailsClosed: what cannot be checked is a failure of the check
// (its error), never only a line.
func TestCheckFailsClosed(t *testing.T) {
	cases := []struct {
		name string
		plan func(ws string) Plan
	}{
		{"the workspace is gone", func(ws string) Plan {
			p := Begin([]string{ws}, true)
			os.RemoveAll(ws)
			return p
		}},
		{"a workspace that is not a folder", func(ws string) Plan {
			f := filepath.Join(ws, "a")
			return Plan{Areas: []string{f}}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ws, _ := workspace(t)
			r, err := Check(tc.plan(ws))
			if err == nil || len(r.Failures) == 0 {
				t.Fatalf("Check = %v, %v: want a failure", r.Lines(), err)
			}
		})
	}
}

// TestQuarantineNeverReplaces: every name a move aside would take is
// taken first; nothing is replaced, and the plant is still made inert.
func TestQuarantineNeverReplaces(t *testing.T) {
	ws, _ := workspace(t)
	plant := filepath.Join(ws, ".git", "hooks", "pre-commit")
	if err := os.WriteFile(plant, []byte("#!/bin/sh\ntouch /nowhere\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	taken := filepath.Join(ws, ".git", "hooks", "pre-commit"+Quarantined)
	if err := os.WriteFile(taken, []byte("the person's own\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	v := newVerifier([]string{ws}, start(), nil)
	v.quarantine(plant, "test")
	if data, _ := os.ReadFile(taken); string(data) != "the person's own\n" {
		t.Fatalf("the taken name was replaced: %q", data)
	}
	if fi, err := os.Stat(plant); err == nil && fi.Size() != 0 {
		t.Fatalf("the plant is still in place, %d bytes", fi.Size())
	}
	if len(v.r.Findings) != 1 || len(v.r.Failures) != 0 {
		t.Fatalf("report: %v", v.r.Lines())
	}
}

// TestCheckReadsFoldersInBatches: a folder of several batches of entries
// is read whole, a batch at a time: plants among them are found wherever
// the listing puts them.
func TestCheckReadsFoldersInBatches(t *testing.T) {
	ws, mark := workspace(t)
	plan := Begin([]string{ws}, true)
	big := filepath.Join(ws, "big")
	if err := os.MkdirAll(big, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := makeFiles(big, 3*listBatch+7); err != nil {
		t.Fatal(err)
	}
	run(t, big, mark, `mkdir .vscode && echo '{}' > .vscode/tasks.json && git init -q n && git -C n config core.fsmonitor "touch $M; false"`)
	r, err := Check(plan)
	if err != nil {
		t.Fatal(err)
	}
	if exists(filepath.Join(big, ".vscode")) {
		t.Errorf("the .vscode among %d entries is still there:\n%s", 3*listBatch, strings.Join(r.Lines(), "\n"))
	}
	PersonRunsGit(t, filepath.Join(big, "n"))
	if _, err := os.Stat(mark); err == nil {
		t.Fatalf("the person's git ran the plant:\n%s", strings.Join(r.Lines(), "\n"))
	}
}
