package hooks_test

import (
	"os"
	"testing"
)

// TestPurposeReachesTheRequest: the real hook, on a recorded shell call
// that states its purpose, raises a request that shows it to the person;
// a call that states none raises one without.
func TestPurposeReachesTheRequest(t *testing.T) {
	tests := []struct {
		client, fixture, purpose string
	}{
		{"claude", "claude-code-2.1.328-pretooluse-bash.json", "Count the lines of the report"},
		{"gemini", "gemini-cli-0.61.0-beforetool-run_shell_command.json", "Show the header"},
		{"codex", "codex-pretooluse-bash-downloads.json", ""},
	}
	for _, tt := range tests {
		t.Run(tt.client, func(t *testing.T) {
			t.Parallel()
			d := newDaemon(t)
			data, err := os.ReadFile("testdata/" + tt.fixture)
			if err != nil {
				t.Fatal(err)
			}
			runHook(t, tt.client, d.expand(string(data)), "PATHGRANT_SOCKET="+d.sock, "PATHGRANT_WAIT_MS=0", "HOME="+d.home, "XDG_CONFIG_HOME=")
			if r := d.waitPending(1)[0]; r.Purpose != tt.purpose {
				t.Errorf("request's purpose %q, want %q", r.Purpose, tt.purpose)
			}
		})
	}
}
