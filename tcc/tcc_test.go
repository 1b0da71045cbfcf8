package tcc_test

import (
	"errors"
	"io/fs"
	"strings"
	"syscall"
	"testing"

	"pathgrant/tcc"
)

const home = "/Users/ana"

// TestGuarding pins which guarded folder holds a path: the folder itself
// and anything below it, without case, never a look-alike sibling, and
// /Volumes only below it.
func TestGuarding(t *testing.T) {
	tests := []struct {
		name, path string
		want       string // the folder's Name; "" for none
	}{
		{"downloads itself", home + "/Downloads", "Downloads Folder"},
		{"a file in downloads", home + "/Downloads/report.pdf", "Downloads Folder"},
		{"trailing slash", home + "/Documents/", "Documents Folder"},
		{"other case", home + "/desktop/notes.txt", "Desktop Folder"},
		{"icloud drive", home + "/Library/Mobile Documents/com~apple~CloudDocs/a.txt", "iCloud Drive"},
		{"third-party cloud", home + "/Library/CloudStorage/Dropbox/x", "cloud storage"},
		{"a removable volume", "/Volumes/USB/photos", "Removable Volumes or Network Volumes"},
		{"mail needs full disk access", home + "/Library/Mail/V10", "Mail"},
		{"/Volumes itself", "/Volumes", ""},
		{"look-alike sibling", home + "/Downloads2/x", ""},
		{"the home folder", home, ""},
		{"a workspace", home + "/src/app/main.go", ""},
		{"another user's downloads", "/Users/bob/Downloads/x", ""},
		{"relative", "Downloads/x", ""},
		{"library itself", home + "/Library", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, ok := tcc.Guarding(home, tc.path)
			if ok != (tc.want != "") || f.Name != tc.want {
				t.Errorf("Guarding(%q) = %+v, %v; want %q", tc.path, f, ok, tc.want)
			}
		})
	}
}

// TestClassify: who refused a failed access, from the OS, the errno and
// whether pathgrant's policy allowed it.
func TestClassify(t *testing.T) {
	eperm := &fs.PathError{Op: "open", Path: "x", Err: syscall.EPERM}
	tests := []struct {
		name    string
		goos    string
		path    string
		err     error
		allowed bool
		want    tcc.Refuser
	}{
		{"policy refused", "darwin", home + "/Downloads/a", eperm, false, tcc.Pathgrant},
		{"policy refused, no OS error", "linux", home + "/src/a", nil, false, tcc.Pathgrant},
		{"eperm under a guarded folder", "darwin", home + "/Downloads/a", eperm, true, tcc.Privacy},
		{"bare errno", "darwin", home + "/Documents/a", syscall.EPERM, true, tcc.Privacy},
		{"wrapped twice", "darwin", "/Volumes/NAS/a", errors.Join(errors.New("list"), eperm), true, tcc.Privacy},
		{"eperm outside guarded folders", "darwin", "/System/Library/x", eperm, true, tcc.Other},
		{"eacces is the permission bits", "darwin", home + "/Downloads/a", &fs.PathError{Op: "open", Path: "x", Err: syscall.EACCES}, true, tcc.Other},
		{"missing file", "darwin", home + "/Downloads/a", &fs.PathError{Op: "open", Path: "x", Err: syscall.ENOENT}, true, tcc.Other},
		{"eperm on linux is never privacy controls", "linux", home + "/Downloads/a", eperm, true, tcc.Other},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, _ := tcc.Classify(tcc.Access{GOOS: tc.goos, Home: home, Path: tc.path, Err: tc.err, Allowed: tc.allowed})
			if got != tc.want {
				t.Errorf("Classify = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestExplain pins the line a person reads: the path, who refused, that
// pathgrant did not, and the setting that fixes it for the named app.
func TestExplain(t *testing.T) {
	eperm := &fs.PathError{Op: "open", Path: "x", Err: syscall.EPERM}
	tests := []struct {
		name, goos, path, app string
		want                  string // "" when not explained
	}{
		{"downloads from terminal", "darwin", home + "/Downloads/a.txt", "Terminal",
			home + "/Downloads/a.txt: macOS privacy controls refused access to Downloads Folder (Operation not permitted; pathgrant allowed it): " +
				"System Settings → Privacy & Security → Files and Folders (or Full Disk Access): allow Terminal (Downloads Folder)"},
		{"no app known", "darwin", home + "/Desktop", "",
			home + "/Desktop: macOS privacy controls refused access to Desktop Folder (Operation not permitted; pathgrant allowed it): " +
				"System Settings → Privacy & Security → Files and Folders (or Full Disk Access): allow the terminal or agent app you run it from (Desktop Folder)"},
		{"full disk access only", "darwin", home + "/Library/Safari/History.db", "/usr/local/bin/pathgrant",
			home + "/Library/Safari/History.db: macOS privacy controls refused access to Safari (Operation not permitted; pathgrant allowed it): " +
				"System Settings → Privacy & Security → Full Disk Access: allow /usr/local/bin/pathgrant"},
		{"not on linux", "linux", home + "/Downloads/a.txt", "Terminal", ""},
		{"not outside guarded folders", "darwin", home + "/src/a", "Terminal", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := tcc.Explain(tcc.Access{GOOS: tc.goos, Home: home, Path: tc.path, Err: eperm, Allowed: true}, tc.app)
			if got != tc.want || ok != (tc.want != "") {
				t.Errorf("Explain =\n %q, %v\nwant\n %q", got, ok, tc.want)
			}
			if ok && strings.Contains(got, "\n") {
				t.Errorf("Explain is more than one line: %q", got)
			}
		})
	}
}

// TestApp: the app named is the one the person finds in System Settings:
// by bundle id first (Cursor's terminal says vscode), then the terminal,
// then an unknown bundle id as it is, then the binary itself when nothing
// started it but launchd.
func TestApp(t *testing.T) {
	tests := []struct {
		name       string
		env        map[string]string
		executable string
		want       string
	}{
		{"terminal", map[string]string{"TERM_PROGRAM": "Apple_Terminal", "__CFBundleIdentifier": "com.apple.Terminal"}, "/bin/pg", "Terminal"},
		{"cursor's terminal", map[string]string{"TERM_PROGRAM": "vscode", "__CFBundleIdentifier": "com.todesktop.230313mzl4w4u92"}, "", "Cursor"},
		{"terminal program alone", map[string]string{"TERM_PROGRAM": "iTerm.app"}, "", "iTerm"},
		{"unknown bundle", map[string]string{"__CFBundleIdentifier": "org.example.Agent"}, "/bin/pg", "the app org.example.Agent"},
		{"started by launchd", map[string]string{"XPC_SERVICE_NAME": "dev.pathgrant"}, "/usr/local/bin/pathgrant", "/usr/local/bin/pathgrant"},
		{"unknown terminal", map[string]string{"TERM_PROGRAM": "tmux"}, "/bin/pg", ""},
		{"nothing known", nil, "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tcc.App(func(k string) string { return tc.env[k] }, tc.executable); got != tc.want {
				t.Errorf("App = %q, want %q", got, tc.want)
			}
		})
	}
}
