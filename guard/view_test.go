package guard

import (
	"errors"
	"os"
	"strings"
	"testing"
)

// TestConfinedView: a shell command that will run confined is not refused
// what its view opens (mkdir -p ~/.cache/x), and nothing beyond it: a
// read-only file is not written, protected paths stay refused, and
// without a view (the command will not run confined) it is all as before.
func TestConfinedView(t *testing.T) {
	f := newFixture(t)
	for _, dir := range []string{f.H + "/.cache", f.H + "/go/bin", f.T + "/state"} {
		mustMkdir(t, dir)
	}
	if err := os.WriteFile(f.H+"/.gitconfig", []byte("[user]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	view := &View{Writable: []string{"~/.cache", f.T + "/state"}, Runnable: []string{"~/go"}, Readable: []string{"~/.gitconfig"}}
	tests := []struct {
		name, shell string
		view        *View
		want        Verdict
		reason      string
	}{
		{name: "mkdir -p in a cache", shell: "mkdir -p ~/.cache/x", view: view, want: Allow},
		{name: "mkdir -p in a cache unconfined", shell: "mkdir -p ~/.cache/x", want: Deny, reason: "never offered"},
		{name: "rm -rf in a cache", shell: "rm -rf ~/.cache/x", view: view, want: Allow},
		{name: "a cache and the workspace", shell: "mkdir -p ~/.cache/x && cp main.go ~/.cache/x/", view: view, want: Allow},
		{name: "beside a cache", shell: "mkdir -p ~/.cachex", view: view, want: Deny},
		{name: "a read-only file read", shell: "cat ~/.gitconfig", view: view, want: Allow},
		{name: "a read-only file written", shell: "echo x >> ~/.gitconfig", view: view, want: Deny},
		{name: "a toolchain read", shell: "ls ~/go/bin", view: view, want: Allow},
		{name: "a toolchain written", shell: "touch ~/go/bin/x", view: view, want: Deny},
		{name: "a protected path in a writable root", shell: "echo x > {T}/state/db", view: view, want: Deny, reason: "protected"},
		{name: "a secret beside the view", shell: "cat {T}/secret/key", view: view, want: Deny, reason: "not in a folder pathgrant offers"},
		{name: "an ssh key stays refused", shell: "cat ~/.ssh/id_rsa", view: view, want: Deny, reason: "it can never be approved"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Evaluate(f.policy, nil, Request{Shell: f.path(tc.shell), View: tc.view})
			if err != nil {
				t.Fatal(err)
			}
			if d.Verdict != tc.want {
				t.Fatalf("got %s (%s), want %s; accesses %+v", d.Verdict, d.Reason, tc.want, d.Accesses)
			}
			if tc.reason != "" && !strings.Contains(d.Reason, tc.reason) {
				t.Errorf("reason %q lacks %q", d.Reason, tc.reason)
			}
		})
	}
	if _, err := Evaluate(f.policy, nil, Request{Op: OpWrite, Path: f.H + "/.cache/x", View: view}); !errors.Is(err, ErrBadRequest) {
		t.Errorf("a view on an op and a path: %v, want a bad request", err)
	}
}
