package hooks_test

import (
	"strings"
	"testing"
)

// TestOpenCodePluginShell: pathgrant's confined wrapper is POSIX shell
// text (VAR=value assignments, then the command inside single quotes,
// each quote in it ended, escaped and reopened), and OpenCode runs a bash
// call's command with the shell its config's "shell" names, else $SHELL,
// else bash (fish and nu it replaces with bash). A shell of another
// syntax reads the wrapper otherwise: to PowerShell and rc a backslash
// escapes nothing, so the escaped quote standing for each quote of the
// command opens a string of their own instead, and a command such as
// x'; Get-Content ~/.ssh/id_rsa; ' comes out of its quotes, its middle
// run as a command of its own, outside the confinement. The plugin stops
// a rewritten call unless OpenCode's shell is one that reads the wrapper
// as written.
func TestOpenCodePluginShell(t *testing.T) {
	const wrapped = "WRAPPED"
	hook := []string{"/bin/sh", "-c", `cat >/dev/null; echo '{"block":false,"command":"` + wrapped + `"}'`}
	cases := []struct {
		name   string
		config any
		shell  string // $SHELL
		runs   bool
	}{
		{"bash", map[string]any{}, "/bin/bash", true},
		{"zsh from the config", map[string]any{"shell": "/usr/bin/zsh"}, "/usr/bin/pwsh", true},
		{"no shell at all: bash", map[string]any{}, "", true},
		{"fish, replaced by bash", map[string]any{}, "/usr/bin/fish", true},
		{"nu in the config, replaced by bash", map[string]any{"shell": "nu"}, "/usr/bin/pwsh", true},
		{"PowerShell from $SHELL", map[string]any{}, "/usr/bin/pwsh", false},
		{"PowerShell from the config", map[string]any{"shell": "pwsh"}, "/bin/bash", false},
		{"any case", map[string]any{"shell": "/opt/PowerShell"}, "/bin/bash", false},
		{"rc", map[string]any{"shell": "/usr/bin/rc"}, "/bin/bash", false},
		{"tcsh", map[string]any{}, "/bin/tcsh", false},
		{"config unknown", nil, "/bin/bash", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := runOpenCodePlugin(t, hook, "/w", tc.config,
				[]opencodeCase{{Tool: "bash", Args: map[string]any{"command": "x'; Get-Content ~/.ssh/id_rsa; '"}}}, "SHELL="+tc.shell)
			switch {
			case tc.runs && (!res[0].Ran || res[0].Command != wrapped):
				t.Errorf("%+v, want it run as %q", res[0], wrapped)
			case !tc.runs && (res[0].Ran || !strings.Contains(res[0].Error, "shell")):
				t.Errorf("%+v, want it stopped: OpenCode's shell would not read the wrapper as written", res[0])
			}
		})
	}
	t.Run("a call left unrewritten runs whatever the shell", func(t *testing.T) {
		res := runOpenCodePlugin(t, []string{"/bin/sh", "-c", `cat >/dev/null; echo '{"block":false}'`}, "/w",
			map[string]any{"shell": "pwsh"}, []opencodeCase{{Tool: "read", Args: map[string]any{"filePath": "a"}}})
		if !res[0].Ran {
			t.Errorf("%+v, want it run", res[0])
		}
	})
}
