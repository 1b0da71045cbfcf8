package ipc_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"pathgrant/engine"
	"pathgrant/guard"
)

// TestDefaultDevicePolicyDownloads: reads under the user's Downloads
// folder (appdirs.Downloads, whose parsing appdirs tests) are eligible.
func TestDefaultDevicePolicyDownloads(t *testing.T) {
	const home = "/home/u"
	config := t.TempDir()
	tests := []struct {
		name, dirs, want string
	}{
		{name: "no file", want: home + "/Downloads"},
		{name: "user-dirs.dirs", dirs: "XDG_DOWNLOAD_DIR=\"/data/dl\"\n", want: "/data/dl"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.dirs != "" {
				writeFile(t, filepath.Join(config, "user-dirs.dirs"), tc.dirs)
			}
			getenv := func(k string) string { return map[string]string{"XDG_CONFIG_HOME": config}[k] }
			got := engine.DefaultDevicePolicy(getenv, home, "/s/state/pathgrant/pathgrant.db", "/run/user/1/pathgrant.sock")
			if !slices.Equal(got.EligibleReadOnly, []string{tc.want}) {
				t.Errorf("eligible = %q, want [%q]", got.EligibleReadOnly, tc.want)
			}
		})
	}
}

// TestDefaultDevicePolicyProtected pins what no session may ever write:
// pathgrant's state, socket and config, and the agents' hook settings.
func TestDefaultDevicePolicyProtected(t *testing.T) {
	const home = "/home/u"
	hooks := []string{home + "/.claude/settings.json", home + "/.claude/settings.local.json", home + "/.codex/hooks.json",
		home + "/.codex/config.toml", home + "/.gemini/settings.json", home + "/.cursor/hooks.json", home + "/.pi/agent/extensions"}
	tests := []struct {
		name, store, socket, configHome string
		want                            []string
		not                             []string
	}{
		{name: "defaults", store: home + "/.local/state/pathgrant/pathgrant.db", socket: "/run/user/1000/pathgrant.sock",
			want: []string{home + "/.local/state/pathgrant", "/run/user/1000", home + "/.config/pathgrant"}},
		{name: "custom config home", store: "/s/pathgrant.db", socket: "/tmp/pathgrant-1000/pathgrant.sock", configHome: "/cfg",
			want: []string{"/s", "/tmp/pathgrant-1000", home + "/.config/pathgrant", "/cfg/pathgrant"}},
		{name: "shared folders: only the files", store: home + "/pathgrant.db", socket: filepath.Join(os.TempDir(), "pg.sock"),
			want: []string{home + "/pathgrant.db", filepath.Join(os.TempDir(), "pg.sock")}, not: []string{home, os.TempDir()}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			getenv := func(k string) string { return map[string]string{"XDG_CONFIG_HOME": tc.configHome}[k] }
			got := engine.DefaultDevicePolicy(getenv, home, tc.store, tc.socket)
			for _, p := range slices.Concat(tc.want, hooks) {
				if !slices.Contains(got.Protected, p) {
					t.Errorf("protected %q lacks %s", got.Protected, p)
				}
			}
			for _, p := range tc.not {
				if slices.Contains(got.Protected, p) {
					t.Errorf("protected %q holds the shared folder %s", got.Protected, p)
				}
			}
			for _, p := range got.Protected {
				if slices.ContainsFunc(got.EligibleReadOnly, func(e string) bool { return guard.Within(p, e) || guard.Within(e, p) }) {
					t.Errorf("protected %s overlaps an eligible root %q", p, got.EligibleReadOnly)
				}
			}
		})
	}
}

// TestDefaultDevicePolicyCompiles checks that the policy is usable as is.
func TestDefaultDevicePolicyCompiles(t *testing.T) {
	home := t.TempDir()
	d := engine.DefaultDevicePolicy(func(string) string { return "" }, home, filepath.Join(home, ".local/state/pathgrant/pathgrant.db"), filepath.Join(home, "run/pathgrant.sock"))
	if _, err := (guard.Policy{DevicePolicy: d}).Compile(home); err != nil {
		t.Fatalf("compile %+v: %v", d, err)
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}
