package appdirs_test

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"pathgrant/appdirs"
)

// TestDownloads pins how the Downloads folder is read from user-dirs.dirs:
// quoting, $HOME, comments, and the values that must fall back to
// ~/Downloads.
func TestDownloads(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("pins the Linux answers; TestPlacesPerOS pins the macOS ones")
	}
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
		{name: "parent of home refused", dirs: "XDG_DOWNLOAD_DIR=\"/home\"\n", want: home + "/Downloads"},
		{name: "sibling with home as prefix", dirs: "XDG_DOWNLOAD_DIR=\"/home/u2\"\n", want: "/home/u2"},
		{name: "relative refused", dirs: "XDG_DOWNLOAD_DIR=\"Downloads2\"\n", want: home + "/Downloads"},
		{name: "unterminated quote refused", dirs: "XDG_DOWNLOAD_DIR=\"$HOME/dl\n", want: home + "/Downloads"},
		{name: "other variable with the prefix", dirs: "XDG_DOWNLOAD_DIRS=\"/x\"\n", want: home + "/Downloads"},
		{name: "XDG_CONFIG_HOME", configEnv: "custom", dirs: "XDG_DOWNLOAD_DIR=\"/data/dl\"\n", want: "/data/dl"},
		{name: "relative XDG_CONFIG_HOME ignored", configEnv: "rel/config", dirs: "XDG_DOWNLOAD_DIR=\"/data/dl\"\n", want: home + "/Downloads"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			config := t.TempDir()
			env := map[string]string{"XDG_CONFIG_HOME": config}
			switch tc.configEnv {
			case "":
			case "custom":
				config = filepath.Join(config, "elsewhere")
				env["XDG_CONFIG_HOME"] = config
			default: // relative: written where it would be read from, and ignored
				t.Chdir(config)
				config = filepath.Join(config, tc.configEnv)
				env["XDG_CONFIG_HOME"] = tc.configEnv
			}
			if tc.dirs != "" {
				writeFile(t, filepath.Join(config, "user-dirs.dirs"), tc.dirs)
			}
			if got := appdirs.Downloads(lookup(env), home); got != tc.want {
				t.Errorf("Downloads = %q, want %q", got, tc.want)
			}
		})
	}
}

func lookup(env map[string]string) appdirs.Getenv {
	return func(k string) string { return env[k] }
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
