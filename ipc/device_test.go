package ipc_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"pathgrant/guard"
	"pathgrant/ipc"
)

// TestDefaultDevicePolicyDownloads pins how the eligible Downloads folder is
// read from user-dirs.dirs: quoting, $HOME, comments, and the values that
// must fall back to ~/Downloads.
func TestDefaultDevicePolicyDownloads(t *testing.T) {
	const home = "/home/u"
	tests := []struct {
		name      string
		dirs      string // user-dirs.dirs content; "" means no file
		configEnv string // XDG_CONFIG_HOME: "custom" means a folder of the test's own
		want      string
	}{
		{name: "no file", want: home + "/Downloads"},
		{name: "xdg default", dirs: "XDG_DESKTOP_DIR=\"$HOME/Desktop\"\nXDG_DOWNLOAD_DIR=\"$HOME/Downloads\"\n", want: home + "/Downloads"},
		{name: "custom under home", dirs: "XDG_DOWNLOAD_DIR=\"$HOME/Téléchargements\"\n", want: home + "/Téléchargements"},
		{name: "absolute", dirs: "XDG_DOWNLOAD_DIR=\"/data/dl\"\n", want: "/data/dl"},
		{name: "escaped quotes and spaces", dirs: `XDG_DOWNLOAD_DIR="$HOME/My \"Stuff\" dl"` + "\n", want: home + `/My "Stuff" dl`},
		{name: "bare word", dirs: "XDG_DOWNLOAD_DIR=$HOME/dl\n", want: home + "/dl"},
		{name: "bare word with escaped blank", dirs: `XDG_DOWNLOAD_DIR=$HOME/my\ dl` + "\n", want: home + "/my dl"},
		{name: "braces", dirs: "XDG_DOWNLOAD_DIR=\"${HOME}/dl\"\n", want: home + "/dl"},
		{name: "trailing slash and comment", dirs: "XDG_DOWNLOAD_DIR=\"$HOME/dl/\"  # mine\n", want: home + "/dl"},
		{name: "blanks around", dirs: "  XDG_DOWNLOAD_DIR = \"$HOME/dl\"  \n", want: home + "/dl"},
		{name: "export", dirs: "export XDG_DOWNLOAD_DIR=\"$HOME/dl\"\n", want: home + "/dl"},
		{name: "last assignment wins", dirs: "XDG_DOWNLOAD_DIR=\"$HOME/a\"\nXDG_DOWNLOAD_DIR=\"$HOME/b\"\n", want: home + "/b"},
		{name: "commented out", dirs: "# XDG_DOWNLOAD_DIR=\"/data/dl\"\n", want: home + "/Downloads"},
		{name: "single quotes do not expand", dirs: "XDG_DOWNLOAD_DIR='$HOME/dl'\n", want: home + "/Downloads"},
		{name: "single quotes absolute", dirs: "XDG_DOWNLOAD_DIR='/data/my dl'\n", want: "/data/my dl"},
		{name: "disabled (home itself)", dirs: "XDG_DOWNLOAD_DIR=\"$HOME/\"\n", want: home + "/Downloads"},
		{name: "root refused", dirs: "XDG_DOWNLOAD_DIR=\"/\"\n", want: home + "/Downloads"},
		{name: "relative refused", dirs: "XDG_DOWNLOAD_DIR=\"Downloads2\"\n", want: home + "/Downloads"},
		{name: "unterminated quote refused", dirs: "XDG_DOWNLOAD_DIR=\"$HOME/dl\n", want: home + "/Downloads"},
		{name: "other variable with the prefix", dirs: "XDG_DOWNLOAD_DIRS=\"/x\"\n", want: home + "/Downloads"},
		{name: "XDG_CONFIG_HOME", configEnv: "custom", dirs: "XDG_DOWNLOAD_DIR=\"/data/dl\"\n", want: "/data/dl"},
		{name: "relative XDG_CONFIG_HOME ignored", configEnv: "rel/config", dirs: "XDG_DOWNLOAD_DIR=\"/data/dl\"\n", want: home + "/Downloads"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			config := t.TempDir()
			switch tc.configEnv {
			case "":
				t.Setenv("XDG_CONFIG_HOME", config)
			case "custom":
				config = filepath.Join(config, "elsewhere")
				t.Setenv("XDG_CONFIG_HOME", config)
			default: // relative: written where it would be read from, and ignored
				t.Chdir(config)
				config = filepath.Join(config, tc.configEnv)
				t.Setenv("XDG_CONFIG_HOME", tc.configEnv)
			}
			if tc.dirs != "" {
				writeFile(t, filepath.Join(config, "user-dirs.dirs"), tc.dirs)
			}
			got := ipc.DefaultDevicePolicy(home, "/s/state/pathgrant/pathgrant.db", "/run/user/1/pathgrant.sock")
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
			t.Setenv("XDG_CONFIG_HOME", tc.configHome)
			got := ipc.DefaultDevicePolicy(home, tc.store, tc.socket)
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
	t.Setenv("XDG_CONFIG_HOME", "")
	d := ipc.DefaultDevicePolicy(home, filepath.Join(home, ".local/state/pathgrant/pathgrant.db"), filepath.Join(home, "run/pathgrant.sock"))
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
