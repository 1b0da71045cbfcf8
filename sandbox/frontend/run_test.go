package frontend

import (
	"bytes"
	"context"
	"pathgrant/wire"
	"strings"
	"testing"
	"time"
)

// TestRun: what Run does with a prepared command, whatever the door: the
// output reaches writers that are not files, a refusal on stderr is
// scanned, an unconfined run says so, a sandbox that was not prepared
// runs nothing, and a command outliving ctx is killed with its group.
func TestRun(t *testing.T) {
	off := wire.Prepared{Unconfined: "the device policy turns confinement off"}
	tests := []struct {
		name    string
		p       wire.Prepared
		script  string
		timeout time.Duration
		status  int
		stdout  string
		stderr  string // stderr holds it
		refused int    // refusal lines scanned
		killed  bool
		err     bool
	}{
		{"output and status", off, "echo out; exit 3", 0, 3, "out\n", "UNCONFINED: the device policy turns confinement off", 0, false, false},
		{"a refusal is scanned", off, "cat /nonexistent/x; exit 1", 0, 1, "", "No such file", 1, false, false},
		{"killed with its group on timeout", off, "sleep 30 & sleep 30", 200 * time.Millisecond, -1, "", "", 0, true, false},
		{"nothing prepared runs nothing", wire.Prepared{Level: "bwrap+landlock"}, "echo ran", 0, -1, "", "", 0, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			if tt.timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tt.timeout)
				defer cancel()
			}
			var stdout, stderr bytes.Buffer
			start := time.Now()
			res := Run(ctx, Child{Prepared: tt.p, Path: "/bin/sh", Argv: []string{"sh", "-c", tt.script}, Env: []string{"PATH=/usr/bin:/bin"},
				Stdout: &stdout, Stderr: &stderr, OwnGroup: true})
			if (res.Err != nil) != tt.err {
				t.Fatalf("Run err = %v, want error %v", res.Err, tt.err)
			}
			if tt.err {
				if stdout.Len() > 0 {
					t.Errorf("ran: %q", stdout.String())
				}
				return
			}
			if tt.status >= 0 && (!res.Status.Exited() || res.Status.ExitStatus() != tt.status) {
				t.Errorf("status %v, want exit %d", res.Status, tt.status)
			}
			if res.Killed != tt.killed || tt.killed && time.Since(start) > 5*time.Second {
				t.Errorf("killed %v after %v, want %v", res.Killed, time.Since(start), tt.killed)
			}
			if stdout.String() != tt.stdout || !strings.Contains(stderr.String(), tt.stderr) || len(res.Refused) != tt.refused {
				t.Errorf("stdout %q stderr %q refused %q; want %q, %q and %d refusals", stdout.String(), stderr.String(), res.Refused,
					tt.stdout, tt.stderr, tt.refused)
			}
		})
	}
}
