package sandbox

import (
	"os"
	"slices"
	"strings"
	"testing"

	"pathgrant/devicepolicy"
)

// TestServedSeveralRoots: with the person's own folders eligible there
// are several approvable roots; each existing one is served into the view
// under the command's token (its own numbered folder bound at its place),
// and a missing one is left out, by the file system and by the seccomp
// supervisor alike.
func TestServedSeveralRoots(t *testing.T) {
	e := newLaunchEnv(t, LevelFull)
	home := e.root + "/home"
	docs, dl, pics, music := home+"/Documents", home+"/Downloads", home+"/Pictures", home+"/Music"
	for _, d := range []string{docs, dl, pics} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	eligible := []string{home + "/Desktop", docs, dl, music, pics}
	want := []string{docs, dl, pics}
	tests := []struct {
		name string
		held bool // a held-open file system is mounted; else the supervisor holds
	}{
		{name: "served by the file system", held: true},
		{name: "held by the supervisor"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := e.l
			l.HeldView, l.Confinement.Hold = "", true
			if tc.held {
				l.HeldView = e.root + "/run/held"
			}
			got, err := l.Launch(e.pol, devicepolicy.Policy{Confinement: true, HoldOpens: true, EligibleReadOnly: eligible}, e.req)
			if err != nil {
				t.Fatal(err)
			}
			if !tc.held {
				if got.Prepared.Hold == nil || !slices.Equal(got.Prepared.Hold.Roots, want) {
					t.Fatalf("held roots %+v, want %q", got.Prepared.Hold, want)
				}
				return
			}
			if got.Served == nil || !slices.Equal(got.Served.Roots, want) {
				t.Fatalf("served roots %+v, want %q", got.Served, want)
			}
			args := strings.Join(got.Prepared.Args, " ")
			for i, r := range want {
				from := l.HeldView + "/" + got.Served.Token + "/" + string(rune('0'+i))
				if !strings.Contains(args, from+" "+r) {
					t.Errorf("%s is not bound from %s: %q", r, from, got.Prepared.Args)
				}
			}
		})
	}
}
