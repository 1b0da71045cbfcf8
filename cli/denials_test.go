package cli

import (
	"bytes"
	"strings"
	"testing"

	"pathgrant/wire"
)

// TestDenialsListsBothKinds: `deny --session` and `deny --device` make
// the two kinds of remembered denial; `pathgrant denials` (and `denials
// list`) shows both, each saying how far it
// holds; lifting an unknown one says so once, in words, without the
// daemon's prefix or an HTTP status.
func TestDenialsListsBothKinds(t *testing.T) {
	e := newDaemonEnv(t)
	for _, d := range []struct {
		name, flag, said string
	}{
		{"report.csv", "--session", "for the rest of the session"},
		{"other.csv", "--device", "on this device"},
	} {
		out := daemonCmd("", false, nil, "deny", e.requestFromAgent(t, d.name), d.flag, "--socket", e.sock).ok(t).stdout
		if !strings.Contains(out, d.said) {
			t.Errorf("deny %s printed %q; want it to say %q", d.flag, out, d.said)
		}
	}
	for _, args := range [][]string{{"--socket", e.sock}, {"list", "--socket", e.sock}} {
		table := denialsCmd(t, args...).stdout
		for _, want := range []string{"its session", "this device", e.dl + "/report.csv", e.dl + "/other.csv"} {
			if !strings.Contains(table, want) {
				t.Errorf("denials %v lacks %q:\n%s", args, want, table)
			}
		}
	}
	r := run(func(a []string, o, e2 *bytes.Buffer) int { return runDenials(a, o, e2) }, "lift", "abcdefgh", "--socket", e.sock)
	if r.code != exitUsage || strings.Count(r.stderr, "\n") != 1 || strings.Contains(r.stderr, "pathgrant daemon:") || strings.Contains(r.stderr, "HTTP") ||
		!strings.Contains(r.stderr, "no remembered denial") {
		t.Errorf("lift of an unknown denial: exit %d, stderr %q; want one plain line, exit %d", r.code, r.stderr, exitUsage)
	}
}

// TestRevokeErrorSaidOnce: revoking a grant that already ended, through
// the daemon, says so in one line, once, without the daemon's prefix or
// an HTTP status.
func TestRevokeErrorSaidOnce(t *testing.T) {
	e := newDaemonEnv(t)
	r, err := e.srv.Engine().Decide(e.requestFromAgent(t, "report.csv"), wire.Decision{Scope: "session"})
	if err != nil {
		t.Fatal(err)
	}
	grantsCmd("revoke", r.Grant, "--socket", e.sock).ok(t)
	again := grantsCmd("revoke", r.Grant, "--socket", e.sock)
	if again.code != 1 || strings.Count(again.stderr, "\n") != 1 || strings.Count(again.stderr, "ended") != 1 ||
		strings.Contains(again.stderr, "pathgrant daemon:") || strings.Contains(again.stderr, "HTTP") {
		t.Errorf("revoking twice: exit %d, stderr %q; want exit 1 and the reason once", again.code, again.stderr)
	}
}
