package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"pathgrant/sandbox"
)

// TestDoorWalkConcurrentCommands: two commands of a session at once,
// through every door. The first one's view holds the absent .mcp.json
// with an empty read-only folder, which the second one's view, prepared
// while it is there, mounts read-only as the member it stands for. The
// first command ends and its check runs; the second, still running,
// then tries to write .mcp.json (which the agent's client would run an
// MCP server from). The view still holds it: the first check did not
// remove a folder a running view mounts (removing it would unmount it
// there). Once both are over, no placeholder is left.
func TestDoorWalkConcurrentCommands(t *testing.T) {
	requireFullConfinement(t)
	names, run := walkDoors(t)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			w := newDoorWalkIn(t, "/tmp", sandbox.Probe())
			place := filepath.Join(w.work, ".mcp.json")
			first := goWalk(func() walked {
				return run[name](w, t, w.script(t, "echo "+started+"; "+waitFor("first-ends")))
			})
			waitExists(t, place, "the first command's placeholder")
			second := goWalk(func() walked {
				return run[name](w, t, w.script(t, "echo "+started+"; : > second-started; "+waitFor("second-writes")+
					"; (printf '{}' > .mcp.json) 2>/dev/null && echo "+escaped+"; mkdir .mcp.json/x 2>/dev/null && echo "+escaped))
			})
			waitExists(t, filepath.Join(w.work, "second-started"), "the second command")
			touch(t, filepath.Join(w.work, "first-ends"))
			if got := <-first; !strings.Contains(got.out, started) {
				t.Fatalf("the first command did not run: %s", got.out)
			}
			touch(t, filepath.Join(w.work, "second-writes"))
			got := <-second
			if !strings.Contains(got.out, started) || strings.Contains(got.out, escaped) {
				t.Fatalf("the second command wrote .mcp.json once the first was checked: %s", got.out)
			}
			if _, err := os.Lstat(place); err == nil {
				t.Error("a placeholder was left in the workspace after both commands")
			}
		})
	}
}

// goWalk runs f beside the test and hands its result over.
func goWalk(f func() walked) <-chan walked {
	c := make(chan walked, 1)
	go func() { c <- f() }()
	return c
}

// waitFor is a script line that waits until the workspace file name
// exists, at most a minute.
func waitFor(name string) string {
	return "for i in $(seq 1200); do [ -e " + name + " ] && break; sleep 0.05; done"
}

func waitExists(t *testing.T, path, what string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if _, err := os.Lstat(path); err == nil {
			return
		}
	}
	t.Fatalf("%s never appeared (%s)", what, path)
}

func touch(t *testing.T, path string) {
	t.Helper()
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
}
