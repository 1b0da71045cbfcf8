package sandbox

import (
	"os"
	"slices"
	"strings"
	"testing"

	"pathgrant/devicepolicy"
	"pathgrant/guard"
	"pathgrant/wire"
)

// TestServedGrantsNotBound: a read grant under a root the file system
// serves (a folder's listing approved is a grant of kind file on the
// folder) is never bound into the view on its own, over the served root:
// the root's read rule would reach everything in a bound folder. The
// server honours it instead, listed among what the command was granted.
func TestServedGrantsNotBound(t *testing.T) {
	e := newLaunchEnv(t, LevelFull)
	dl := e.root + "/home/Downloads"
	sub := dl + "/sub"
	if err := os.MkdirAll(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(sub+"/secret.txt", []byte("s"), 0o600); err != nil {
		t.Fatal(err)
	}
	e.l.HeldView = e.root + "/run/held"
	for _, g := range []wire.Scope{
		{Op: guard.OpRead, Path: sub, Kind: guard.KindFile},
		{Op: guard.OpRead, Path: dl, Kind: guard.KindFile},
		{Op: guard.OpRead, Path: sub + "/secret.txt", Kind: guard.KindFile},
		{Op: guard.OpRead, Path: sub, Kind: guard.KindFolder},
	} {
		t.Run(g.Path+" "+string(g.Kind), func(t *testing.T) {
			pol := e.pol
			pol.Grants = []wire.Scope{g}
			l, err := e.l.Launch(pol, devicepolicy.Policy{Confinement: true, HoldOpens: true, EligibleReadOnly: []string{dl}}, e.req)
			if err != nil {
				t.Fatal(err)
			}
			args := strings.Join(l.Prepared.Args, " ")
			if strings.Contains(args, " "+g.Path+" "+g.Path+" ") || !strings.Contains(args, "--ro-bind "+e.l.HeldView) {
				t.Errorf("the grant of %s is bound beneath the served root: %q", g.Path, l.Prepared.Args)
			}
			if l.Served == nil || !slices.Contains(l.Served.Granted, g) {
				t.Errorf("the served part %+v does not carry the grant %+v", l.Served, g)
			}
		})
	}
}
