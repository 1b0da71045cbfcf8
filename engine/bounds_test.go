package engine

import (
	"io"
	"log/slog"
	"path/filepath"
	"testing"

	"pathgrant/engine/boundstest"
	"pathgrant/grants"
	"pathgrant/guard"
)

// BenchmarkRegistrationBounds is what the bounds add to a registration:
// listing and canonicalising the places, and checking two roots.
func BenchmarkRegistrationBounds(bm *testing.B) {
	root := bm.TempDir()
	layout := boundstest.NewLayout(bm, root)
	home := filepath.Join(root, "home")
	st, err := grants.Open(filepath.Join(root, "state", "pathgrant.db"), grants.Options{MachineID: "bench", NoWatch: true})
	if err != nil {
		bm.Fatal(err)
	}
	bm.Cleanup(func() { st.Close() })
	s := New(Config{Store: st, Home: home, Getenv: layout.Getenv, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Device: DefaultDevicePolicy(layout.Getenv, home, st.Path(), layout.Socket())})
	sp := guard.SessionPolicy{Workspace: []string{filepath.Join(home, "work")}, ReadOnly: []string{filepath.Join(home, "Downloads")}}
	for bm.Loop() {
		if err := checkBounds(sp, s.registrationBounds()); err != nil {
			bm.Fatal(err)
		}
	}
}
