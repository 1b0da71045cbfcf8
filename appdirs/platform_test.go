package appdirs

import (
	"os"
	"path/filepath"
	"testing"
)

// TestPlacesPerOS pins where pathgrant's own folders go on each OS: the
// Linux answers are the XDG ones they always were, the macOS ones are
// under ~/Library/Application Support and $TMPDIR, and on both an
// absolute XDG variable wins while a relative one is ignored.
func TestPlacesPerOS(t *testing.T) {
	const home = "/Users/u"
	linuxTmp := filepath.Join(os.TempDir(), "pathgrant-501")
	tests := []struct {
		name, goos                    string
		env                           map[string]string
		config, state, runtime, store string
	}{
		{name: "linux defaults", goos: "linux",
			config: home + "/.config/pathgrant", state: home + "/.local/state/pathgrant", runtime: linuxTmp},
		{name: "linux xdg", goos: "linux",
			env:    map[string]string{"XDG_CONFIG_HOME": "/c", "XDG_STATE_HOME": "/s", "XDG_RUNTIME_DIR": "/run/user/501", "TMPDIR": "/elsewhere"},
			config: "/c/pathgrant", state: "/s/pathgrant", runtime: "/run/user/501"},
		{name: "darwin defaults", goos: "darwin",
			env:    map[string]string{"TMPDIR": "/var/folders/zz/abc/T/"},
			config: home + "/Library/Application Support/pathgrant", state: home + "/Library/Application Support/pathgrant",
			runtime: "/var/folders/zz/abc/T/pathgrant-501"},
		{name: "darwin without TMPDIR", goos: "darwin",
			config: home + "/Library/Application Support/pathgrant", state: home + "/Library/Application Support/pathgrant",
			runtime: "/tmp/pathgrant-501"},
		{name: "darwin relative TMPDIR and XDG ignored", goos: "darwin",
			env:    map[string]string{"TMPDIR": "tmp", "XDG_CONFIG_HOME": "c", "XDG_STATE_HOME": "s", "XDG_RUNTIME_DIR": "r"},
			config: home + "/Library/Application Support/pathgrant", state: home + "/Library/Application Support/pathgrant",
			runtime: "/tmp/pathgrant-501"},
		{name: "darwin xdg", goos: "darwin",
			env:    map[string]string{"XDG_CONFIG_HOME": "/c", "XDG_STATE_HOME": "/s", "XDG_RUNTIME_DIR": "/r", "TMPDIR": "/var/folders/zz/abc/T/"},
			config: "/c/pathgrant", state: "/s/pathgrant", runtime: "/r"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			getenv := func(k string) string { return tc.env[k] }
			if got := configDirOn(tc.goos, getenv, home); got != tc.config {
				t.Errorf("config = %q, want %q", got, tc.config)
			}
			if got := stateDirOn(tc.goos, getenv, home); got != tc.state {
				t.Errorf("state = %q, want %q", got, tc.state)
			}
			if got := runtimeDirOn(tc.goos, getenv, 501); got != tc.runtime {
				t.Errorf("runtime = %q, want %q", got, tc.runtime)
			}
		})
	}
}

// TestDownloadsPerOS: macOS has no user-dirs.dirs, so a file that moves
// Downloads on Linux is not read there.
func TestDownloadsPerOS(t *testing.T) {
	const home = "/Users/u"
	config := t.TempDir()
	if err := os.WriteFile(filepath.Join(config, "user-dirs.dirs"), []byte("XDG_DOWNLOAD_DIR=\"/data/dl\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	getenv := func(k string) string { return map[string]string{"XDG_CONFIG_HOME": config}[k] }
	for goos, want := range map[string]string{"linux": "/data/dl", "darwin": home + "/Downloads"} {
		t.Run(goos, func(t *testing.T) {
			if got := downloadsOn(goos, getenv, home); got != want {
				t.Errorf("downloads = %q, want %q", got, want)
			}
		})
	}
}

// TestDefaultStoreInStateDir: the default store lies in StateDir, on
// whichever OS the test runs.
func TestDefaultStoreInStateDir(t *testing.T) {
	getenv := func(k string) string { return map[string]string{"HOME": "/h"}[k] }
	store, err := DefaultStore(getenv)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(StateDir(getenv, "/h"), "pathgrant.db"); store != want {
		t.Errorf("DefaultStore = %q, want %q", store, want)
	}
}
