package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInstallDesktop runs the Linux install twice: the desktop and
// autostart entries name this binary, the icon is there.
func TestInstallDesktop(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_DATA_HOME", "")
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "cfg"))
	for range 2 { // idempotent
		code, stdout, stderr := runCLI("install-desktop")
		if code != 0 || stderr != "" {
			t.Fatalf("exit %d: %s %s", code, stdout, stderr)
		}
	}
	exe, _ := os.Executable()
	for _, p := range []string{home + "/.local/share/applications/pathgrant.desktop", home + "/cfg/autostart/pathgrant.desktop"} {
		data, err := os.ReadFile(p)
		if err != nil || !strings.Contains(string(data), "Exec="+desktopQuote(exe)+"\n") || !strings.Contains(string(data), "[Desktop Entry]") {
			t.Fatalf("%s: %q %v", p, data, err)
		}
	}
	if fi, err := os.Stat(home + "/.local/share/icons/hicolor/64x64/apps/pathgrant.png"); err != nil || fi.Size() == 0 {
		t.Fatalf("icon: %v", err)
	}
}
