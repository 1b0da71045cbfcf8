package wire

import "testing"

// TestDaemonErrorLine: a daemon's refusal reads as its own one line, with
// no second "pathgrant" and no HTTP status for the CLI to print after
// "pathgrant CMD:"; a refusal without a message still says what it was.
func TestDaemonErrorLine(t *testing.T) {
	tests := []struct {
		name string
		err  DaemonError
		want string
	}{
		{"the daemon's message alone", DaemonError{Status: 404, Msg: "no approval request abc"}, "no approval request abc"},
		{"no message", DaemonError{Status: 500}, "the daemon refused the call (status 500)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.err.Error(); got != tt.want {
				t.Errorf("Error() = %q, want %q", got, tt.want)
			}
		})
	}
}
