package engine

import (
	"slices"
	"strings"
	"testing"
)

// TestPrivacyRefusals: a confined command's "Operation not permitted" on
// a path its view showed, under a folder macOS privacy controls guard, is
// put on macOS's account with the setting that fixes it; a path outside
// the view, another message, another folder or Linux never is.
func TestPrivacyRefusals(t *testing.T) {
	const home = "/Users/ana"
	shownOnly := func(shown ...string) func([]string) []string {
		return func(paths []string) []string {
			var out []string
			for _, p := range paths {
				if !slices.Contains(shown, p) {
					out = append(out, p)
				}
			}
			return out
		}
	}
	granted := shownOnly("/Users/ana/Downloads/report.csv", "/Users/ana/ws/notes.txt")
	tests := []struct {
		name    string
		goos    string
		line    string
		outside func([]string) []string
		want    string // a substring of the one line, "" for none
	}{
		{"granted Downloads file, EPERM", "darwin", "cat: /Users/ana/Downloads/report.csv: Operation not permitted", granted,
			"/Users/ana/Downloads/report.csv: macOS privacy controls refused access to Downloads"},
		{"python's spelling", "darwin", "PermissionError: [Errno 1] Operation not permitted: '/Users/ana/Downloads/report.csv'", granted,
			"System Settings → Privacy & Security"},
		{"outside the view: pathgrant's", "darwin", "cat: /Users/ana/Downloads/other.csv: Operation not permitted", granted, ""},
		{"permission bits, not privacy", "darwin", "cat: /Users/ana/Downloads/report.csv: Permission denied", granted, ""},
		{"a folder privacy controls do not guard", "darwin", "cat: /Users/ana/ws/notes.txt: Operation not permitted", granted, ""},
		{"Linux", "linux", "cat: /Users/ana/Downloads/report.csv: Operation not permitted", granted, ""},
		{"view unknown", "darwin", "cat: /Users/ana/Downloads/report.csv: Operation not permitted", nil, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := privacyRefusals(tc.goos, home, []string{tc.line}, tc.outside)
			switch {
			case tc.want == "" && len(got) != 0:
				t.Errorf("got %q, want nothing on macOS's account", got)
			case tc.want != "" && (len(got) != 1 || !strings.Contains(got[0], tc.want) || !strings.HasPrefix(got[0], "pathgrant: ")):
				t.Errorf("got %q, want one line holding %q", got, tc.want)
			}
		})
	}
}
