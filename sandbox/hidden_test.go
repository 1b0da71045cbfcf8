package sandbox

import (
	"slices"
	"testing"
)

// TestHiddenPathsPerOS: pathgrant's own folders are hidden on each OS,
// where that OS keeps them: on macOS ~/Library/Application Support/pathgrant
// (appdirs: the store, the launchd daemon's headless log, the device
// policy), which doctor's safe log folders are read from too; Linux's
// list stays as it was.
func TestHiddenPathsPerOS(t *testing.T) {
	const home = "/Users/ana"
	const mac = home + "/Library/Application Support/pathgrant"
	pl := Places{Getenv: func(string) string { return "" }, Home: home, UID: 501, Socket: "/tmp/pathgrant-501/pathgrant.sock"}
	tests := []struct {
		goos string
		want []string // each hidden
		not  []string // none hidden
	}{
		{"darwin", []string{mac, home + "/.local/state/pathgrant", home + "/.config/pathgrant", "/tmp/pathgrant-501"}, nil},
		{"linux", []string{home + "/.local/state/pathgrant", home + "/.config/pathgrant", "/tmp/pathgrant-501"}, []string{mac}},
	}
	for _, tc := range tests {
		t.Run(tc.goos, func(t *testing.T) {
			got := hiddenPathsOn(tc.goos, pl)
			for _, w := range tc.want {
				if !slices.Contains(got, w) {
					t.Errorf("%s not hidden: %q", w, got)
				}
			}
			for _, n := range tc.not {
				if slices.Contains(got, n) {
					t.Errorf("%s hidden: %q", n, got)
				}
			}
		})
	}
}
