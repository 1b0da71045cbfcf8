package ipc

import (
	"context"
	"testing"

	"pathgrant/guard"
	"pathgrant/wire"
)

// TestConfinedViewCheck: a hook's check of a shell command it will run
// confined does not refuse what the command's view opens (the device
// policy's caches: mkdir -p ~/.cache/x), and is given the capability to
// run it there; the same text is refused when it would not run confined
// (confinement off, or a check that runs nothing), and nothing beyond the
// view is opened.
func TestConfinedViewCheck(t *testing.T) {
	ce := newCapEnv(t)
	tests := []struct {
		name, command string
		confine       bool
		run           bool // the check asks for a capability: the hook rewrites the command
		want          wire.Verdict
	}{
		{name: "mkdir -p in a cache, confined", command: "mkdir -p ~/.cache/x", confine: true, run: true, want: guard.Allow},
		{name: "a file written in a cache, confined", command: "echo hi > ~/.cache/x.txt", confine: true, run: true, want: guard.Allow},
		{name: "mkdir -p in a cache, confinement off", command: "mkdir -p ~/.cache/x", run: true, want: guard.Deny},
		{name: "mkdir -p in a cache, nothing run", command: "mkdir -p ~/.cache/x", confine: true, want: guard.Deny},
		{name: "beside the cache, confined", command: "mkdir -p ~/.cachex", confine: true, run: true, want: guard.Deny},
		{name: "the home folder, confined", command: "touch ~/x", confine: true, run: true, want: guard.Deny},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ce.confine.Store(tc.confine)
			req := wire.CheckRequest{ClientSession: "claude-1", Cwd: ce.work, Agent: "claude", Tool: "Bash",
				Command: "cd -- " + ce.work + " && " + tc.command}
			if tc.run {
				req.ExecCommand = tc.command
			}
			ans, err := ce.client.Check(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if ans.Decision != tc.want {
				t.Fatalf("decision %s (%s), want %s", ans.Decision, ans.Reason, tc.want)
			}
			if got := ans.Exec != nil && ans.Exec.Capability != ""; got != (tc.want == guard.Allow) {
				t.Errorf("capability issued: %v, want %v (%+v)", got, tc.want == guard.Allow, ans.Exec)
			}
		})
	}
}
