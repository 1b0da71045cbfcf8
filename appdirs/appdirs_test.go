package appdirs_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"pathgrant/appdirs"
)

// TestSocket pins where the daemon listens and every client looks.
func TestSocket(t *testing.T) {
	fallback := filepath.Join(os.TempDir(), fmt.Sprintf("pathgrant-%d", os.Getuid()), "pathgrant.sock")
	tests := []struct {
		name string
		env  map[string]string
		flag string
		want string
	}{
		{name: "no runtime dir", want: fallback},
		{name: "runtime dir", env: map[string]string{"XDG_RUNTIME_DIR": "/run/user/1000"}, want: "/run/user/1000/pathgrant.sock"},
		{name: "relative runtime dir ignored", env: map[string]string{"XDG_RUNTIME_DIR": "relative"}, want: fallback},
		{name: "env wins", env: map[string]string{"XDG_RUNTIME_DIR": "/run/user/1000", appdirs.SocketEnv: "/tmp/x.sock"}, want: "/tmp/x.sock"},
		{name: "flag wins", env: map[string]string{appdirs.SocketEnv: "/tmp/x.sock"}, flag: "/f.sock", want: "/f.sock"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := appdirs.SocketOr(tc.flag, lookup(tc.env)); got != tc.want {
				t.Errorf("SocketOr(%q) = %q, want %q", tc.flag, got, tc.want)
			}
		})
	}
}

// TestStore pins the store path: flag, then $PATHGRANT_STORE, then the XDG
// state folder; always absolute.
func TestStore(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("pins the Linux answers; TestPlacesPerOS pins the macOS ones")
	}
	cwd := t.TempDir()
	t.Chdir(cwd)
	tests := []struct {
		name    string
		env     map[string]string
		flag    string
		want    string
		wantErr bool
	}{
		{name: "xdg unset", env: map[string]string{"HOME": "/h"}, want: "/h/.local/state/pathgrant/pathgrant.db"},
		{name: "xdg relative is ignored", env: map[string]string{"HOME": "/h", "XDG_STATE_HOME": "rel"}, want: "/h/.local/state/pathgrant/pathgrant.db"},
		{name: "xdg set", env: map[string]string{"HOME": "/h", "XDG_STATE_HOME": "/xdg/state"}, want: "/xdg/state/pathgrant/pathgrant.db"},
		{name: "env wins over xdg", env: map[string]string{"XDG_STATE_HOME": "/xdg", appdirs.StoreEnv: "/env/p.db"}, want: "/env/p.db"},
		{name: "flag wins over env", env: map[string]string{appdirs.StoreEnv: "/env/p.db"}, flag: "/flag/p.db", want: "/flag/p.db"},
		{name: "relative flag made absolute", flag: "p.db", want: filepath.Join(cwd, "p.db")},
		{name: "no home", wantErr: true},
		{name: "relative home", env: map[string]string{"HOME": "h"}, wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := appdirs.Store(tc.flag, lookup(tc.env))
			if tc.wantErr {
				if err == nil {
					t.Errorf("Store = %q, want an error", got)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("Store(%q) = %q, %v; want %q", tc.flag, got, err, tc.want)
			}
		})
	}
}

// TestXDGHomes pins the XDG base folders: absolute values only.
func TestXDGHomes(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("pins the Linux answers; TestPlacesPerOS pins the macOS ones")
	}
	const home = "/h"
	tests := []struct {
		name string
		get  func(appdirs.Getenv, string) string
		env  string
		def  string
	}{
		{"config", appdirs.ConfigHome, "XDG_CONFIG_HOME", "/h/.config"},
		{"data", appdirs.DataHome, "XDG_DATA_HOME", "/h/.local/share"},
		{"state", appdirs.StateHome, "XDG_STATE_HOME", "/h/.local/state"},
		{"pathgrant config", func(g appdirs.Getenv, h string) string { return filepath.Dir(appdirs.ConfigDir(g, h)) }, "XDG_CONFIG_HOME", "/h/.config"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for val, want := range map[string]string{"": tc.def, "rel/x": tc.def, "/x/": "/x"} {
				if got := tc.get(lookup(map[string]string{tc.env: val}), home); got != want {
					t.Errorf("%s=%q: got %q, want %q", tc.env, val, got, want)
				}
			}
		})
	}
	if got := appdirs.ConfigDir(lookup(nil), home); got != "/h/.config/pathgrant" {
		t.Errorf("ConfigDir = %q", got)
	}
}

// TestFindBinary: the binary next to the running one comes first, then
// the first absolute $PATH entry that has it; relative entries, folders and
// files that cannot run are passed over.
func TestFindBinary(t *testing.T) {
	dir := t.TempDir()
	mk := func(path string, mode os.FileMode) {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, nil, mode); err != nil {
			t.Fatal(err)
		}
	}
	mk(dir+"/noexec/pg-tool", 0o600)
	mk(dir+"/good/pg-tool", 0o700)
	if err := os.MkdirAll(dir+"/folder/pg-tool", 0o700); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path, want string
	}{
		{"first usable entry", dir + "/noexec:" + dir + "/folder:relative:" + dir + "/good", dir + "/good/pg-tool"},
		{"none usable", dir + "/noexec:" + dir + "/folder", ""},
		{"empty PATH", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := appdirs.FindBinary("pg-tool", func(k string) string { return map[string]string{"PATH": tt.path}[k] })
			if got != tt.want || (err != nil) != (tt.want == "") {
				t.Errorf("FindBinary = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}
