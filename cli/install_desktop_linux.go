package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"pathgrant/appdirs"
	"pathgrant/assets"
)

// installDesktopSummary is install-desktop's line in `pathgrant help`.
const installDesktopSummary = "install the desktop entry, autostart entry and icon for this user"

// installDesktop writes the desktop entry, the same entry for XDG
// autostart, and the icon, the entry's Exec naming this binary.
func installDesktop() ([]string, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find this binary: %w", err)
	}
	home, err := appdirs.Home(os.Getenv)
	if err != nil {
		return nil, err
	}
	data, config := appdirs.DataHome(os.Getenv, home), appdirs.ConfigHome(os.Getenv, home)
	entry := strings.Replace(assets.DesktopEntry, "Exec=pathgrant", "Exec="+desktopQuote(exe), 1)
	files := []struct {
		path string
		data []byte
	}{
		{filepath.Join(data, "applications", "pathgrant.desktop"), []byte(entry)},
		{filepath.Join(config, "autostart", "pathgrant.desktop"), []byte(entry)},
		{filepath.Join(data, "icons", "hicolor", "64x64", "apps", "pathgrant.png"), assets.Icon},
	}
	var written []string
	for _, f := range files {
		if err := writeFileAtomic(f.path, f.data); err != nil {
			return written, err
		}
		written = append(written, f.path)
	}
	return written, nil
}
