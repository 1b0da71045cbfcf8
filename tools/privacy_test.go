package tools

import (
	"io/fs"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestOSFailure: an allowed read that macOS answers with EPERM under a
// folder its privacy controls guard says so, with the setting to change
// and the app to allow; every other failure keeps its own message, and
// Linux never changes one.
func TestOSFailure(t *testing.T) {
	const home, path = "/Users/ana", "/Users/ana/Downloads/report.pdf"
	eperm := &fs.PathError{Op: "open", Path: path, Err: unix.EPERM}
	tests := []struct {
		name, goos, path string
		err              error
		want             []string // substrings; the first is the start
	}{
		{"privacy refusal", "darwin", path, eperm, []string{path + ": macOS privacy controls refused access to Downloads Folder",
			"pathgrant allowed it", "Privacy & Security → Files and Folders (or Full Disk Access): allow Terminal (Downloads Folder)"}},
		{"eperm outside guarded folders", "darwin", "/Users/ana/src/a", eperm, []string{"kept"}},
		{"missing file", "darwin", path, &fs.PathError{Op: "open", Path: path, Err: unix.ENOENT}, []string{"kept"}},
		{"linux eperm", "linux", path, eperm, []string{"kept"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			asked := false
			app := func() string { asked = true; return "Terminal" }
			got := osFailureOn(tc.goos, home, tc.path, tc.err, "kept", app)
			if !strings.HasPrefix(got, tc.want[0]) {
				t.Errorf("message %q, want it to start %q", got, tc.want[0])
			}
			for _, w := range tc.want[1:] {
				if !strings.Contains(got, w) {
					t.Errorf("message %q lacks %q", got, w)
				}
			}
			if asked != (got != "kept") {
				t.Errorf("app asked %v for message %q", asked, got)
			}
		})
	}
}
