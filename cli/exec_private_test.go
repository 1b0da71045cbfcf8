package cli

import (
	"os"
	"strings"
	"testing"

	"pathgrant/sandbox"
)

// TestExecPrivateRoots: a confined command's /tmp and /dev/shm are its
// own, and writable. Where the approvable roots are held by the seccomp
// supervisor and the session's home (so Downloads, which only the person
// can open) lies beneath one, that one gets no rule: the command cannot
// make anything at its top, and its temporary files go to TMPDIR, which
// works wherever the home lies. Served by pathgrant's file system,
// Downloads is the server's to open and read-only whatever the rules, so
// the private root keeps its rule there too.
func TestExecPrivateRoots(t *testing.T) {
	requireFullConfinement(t)
	bin := buildBinary(t)
	const (
		tmp    = `echo x > /tmp/f && cat /tmp/f`
		shm    = `echo x > /dev/shm/f && cat /dev/shm/f`
		tmpdir = `echo x > "$TMPDIR/f" && cat "$TMPDIR/f"`
	)
	tests := []struct {
		mode   string
		base   string
		works  []string // scripts that print x
		closed []string // scripts refused
	}{
		{"file system", "/var/tmp", []string{tmp, shm, tmpdir}, nil},
		{"file system", "/tmp", []string{tmp, shm, tmpdir}, nil},
		{"file system", "/dev/shm", []string{tmp, shm, tmpdir}, nil},
		{"seccomp", "/var/tmp", []string{tmp, shm, tmpdir}, nil},
		{"seccomp", "/tmp", []string{shm, tmpdir}, []string{tmp}},
		{"seccomp", "/dev/shm", []string{tmp, tmpdir}, []string{shm}},
	}
	modes := map[string]holdMode{}
	for _, m := range holdModes() {
		modes[m.name] = m
	}
	for _, tt := range tests {
		t.Run(tt.mode+" "+tt.base, func(t *testing.T) {
			if fi, err := os.Stat(tt.base); err != nil || !fi.IsDir() {
				t.Skipf("%s is not a folder here: %v", tt.base, err)
			}
			e := newExecEnvIn(t, tt.base, sandbox.Probe(), modes[tt.mode].set(t))
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
