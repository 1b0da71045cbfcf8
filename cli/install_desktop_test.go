package cli

import (
	"os"
	"testing"
)

// TestInstallDesktopUsage: install-desktop takes no argument, on every
// platform, and installs nothing when given one.
func TestInstallDesktopUsage(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	code, stdout, stderr := runCLI("install-desktop", "extra")
	if code != 2 || stdout != "" || stderr != installDesktopUsageText+"\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q; want 2 and the usage line", code, stdout, stderr)
	}
	if entries, err := os.ReadDir(home); err != nil || len(entries) != 0 {
		t.Errorf("home holds %v (%v), want nothing installed", entries, err)
	}
}

func TestDesktopQuote(t *testing.T) {
	for in, want := range map[string]string{
		"/usr/bin/pathgrant":     "/usr/bin/pathgrant",
		"/opt/my apps/pathgrant": `"/opt/my apps/pathgrant"`,
		`/x/$HOME"q`:             `"/x/\\$HOME\\"q"`,
	} {
		if got := desktopQuote(in); got != want {
			t.Errorf("desktopQuote(%q) = %q, want %q", in, got, want)
		}
	}
}
