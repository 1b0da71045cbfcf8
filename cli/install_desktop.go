package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// runInstallDesktop installs what starts pathgrant for the current user,
// pointing at this binary: on Linux the desktop entry, an XDG autostart
// entry and the icon; on macOS a launchd user agent that runs the headless
// daemon (installDesktop, one per platform). It prints each file written
// and each service loaded, one a line.
func runInstallDesktop(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		fmt.Fprintln(stderr, "usage: pathgrant install-desktop")
		return exitUsage
	}
	written, err := installDesktop()
	if err != nil {
		return fail(stderr, "install-desktop", err)
	}
	for _, p := range written {
		fmt.Fprintln(stdout, p)
	}
	return exitOK
}

// desktopQuote quotes an Exec path per the desktop entry spec: the quoting
// rule escapes " ` $ \ with a backslash, and the string rule, applied to
// the file's text, doubles every backslash again.
func desktopQuote(p string) string {
	if !strings.ContainsAny(p, " \t\"'\\$`") {
		return p
	}
	r := strings.NewReplacer(`\`, `\\\\`, `"`, `\\"`, "`", "\\\\`", `$`, `\\$`)
	return `"` + r.Replace(p) + `"`
}

// writeFileAtomic writes through a temporary file and a rename, so an
// interrupted install never leaves half a file.
func writeFileAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(path), err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".pathgrant-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
