package cli

import (
	"os"
	"strings"
	"testing"

	"pathgrant/sandbox"
)

// TestExecPrivateRoots: a confined command's /tmp and /dev/shm are its
// own, and writable, unless the session's home (so Downloads, which only
// the person can open) lies beneath one: then that one gets no rule, the
// command cannot make anything at its top, and its temporary files go
// to TMPDIR, which works wherever the home lies.
func TestExecPrivateRoots(t *testing.T) {
	requireFullConfinement(t)
	bin := buildBinary(t)
	const (
		tmp    = `echo x > /tmp/f && cat /tmp/f`
		shm    = `echo x > /dev/shm/f && cat /dev/shm/f`
		tmpdir = `echo x > "$TMPDIR/f" && cat "$TMPDIR/f"`
	)
	tests := []struct {
		base   string
		works  []string // scripts that print x
		closed []string // scripts refused
	}{
		{"/var/tmp", []string{tmp, shm, tmpdir}, nil},
		{"/tmp", []string{shm, tmpdir}, []string{tmp}},
		{"/dev/shm", []string{tmp, tmpdir}, []string{shm}},
	}
	for _, tt := range tests {
		t.Run(tt.base, func(t *testing.T) {
			if fi, err := os.Stat(tt.base); err != nil || !fi.IsDir() {
				t.Skipf("%s is not a folder here: %v", tt.base, err)
			}
			e := newExecEnvIn(t, tt.base, sandbox.Probe())
			for _, s := range tt.works {
				if r := runCmd(t, e.execCmd(bin, "--", "sh", "-c", s)); r.code != 0 || strings.TrimSpace(r.stdout) != "x" {
					t.Errorf("%s: exit %d, stdout %q, stderr %q; want x", s, r.code, r.stdout, r.stderr)
				}
			}
			for _, s := range tt.closed {
				if r := runCmd(t, e.execCmd(bin, "--", "sh", "-c", s)); r.code == 0 || !strings.Contains(r.stderr, "Permission denied") {
					t.Errorf("%s: exit %d, stdout %q, stderr %q; want Permission denied", s, r.code, r.stdout, r.stderr)
				}
			}
		})
	}
}
