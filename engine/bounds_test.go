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

// TestBoundsFoldCase: on macOS, whose volumes are case-insensitive unless
// formatted otherwise, a root written in another casing (or with a
// Unicode letter that folds to the same one) names the same folder, and
// is held to the bounds as that folder; on Linux another casing is
// another folder, as it always was.
func TestBoundsFoldCase(t *testing.T) {
	bounds := []bound{
		{"/Users/ana", boundHome},
		{"/Users/ana/Library/Keychains", boundCredential},
		{"/Users/ana/Library/Application Support/pathgrant", boundState},
		{"/Users/ana/.claude", boundAgent},
	}
	tests := []struct {
		name, goos, root string
		refused          bool
	}{
		{"home in another casing", "darwin", "/users/ana", true},
		{"inside a credential folder in lower case", "darwin", "/Users/ana/library/keychains/login", true},
		{"containing the home folder", "darwin", "/USERS", true},
		{"the state folder in another casing", "darwin", "/Users/ana/Library/Application support/pathgrant", true},
		{"an agent home in upper case", "darwin", "/Users/ana/.CLAUDE", true},
		{"a Kelvin sign for K", "darwin", "/Users/ana/Library/\u212Aeychains/login", true},
		{"a look-alike name", "darwin", "/Users/ana/Library/KeychainsX", false},
		{"a workspace", "darwin", "/users/ana/work", false},
		{"linux: another casing is another folder", "linux", "/users/ana", false},
		{"linux: lower-case keychains", "linux", "/Users/ana/library/keychains", false},
		{"linux: the exact folder", "linux", "/Users/ana/Library/Keychains", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := checkBoundsOn(tc.goos, guard.SessionPolicy{ReadOnly: []string{tc.root}}, bounds)
			if (err != nil) != tc.refused {
				t.Errorf("checkBounds(%s) on %s: %v; want refused %v", tc.root, tc.goos, err, tc.refused)
			}
		})
	}
}
