package devicepolicy

import (
	"slices"
	"testing"
)

// TestForbiddenOn: macOS adds its keychains and ~/Library profiles to the
// folders no root may touch; Linux's list is the same on both.
func TestForbiddenOn(t *testing.T) {
	home := "/Users/u"
	tests := []struct {
		goos string
		path string
		want bool
	}{
		{"linux", "/Users/u/.ssh", true},
		{"darwin", "/Users/u/.ssh", true},
		{"darwin", "/Users/u/Library/Keychains", true},
		{"darwin", "/Users/u/Library/Application Support/Google/Chrome", true},
		{"darwin", "/Users/u/Library/Application Support/Firefox", true},
		{"linux", "/Users/u/Library/Keychains", false},
		{"darwin", "/Users/u/Library/Application Support/pathgrant", false}, // pathgrant's own: bounded elsewhere
	}
	for _, tc := range tests {
		t.Run(tc.goos+tc.path, func(t *testing.T) {
			got := slices.Contains(forbiddenOn(tc.goos, home), tc.path)
			if got != tc.want {
				t.Errorf("forbiddenOn(%s) holds %s: %v, want %v", tc.goos, tc.path, got, tc.want)
			}
		})
	}
}
