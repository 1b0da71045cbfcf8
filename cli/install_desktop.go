package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// installDesktopUsageText is install-desktop's usage line.
const installDesktopUsageText = "usage: pathgrant install-desktop [--uninstall]"

// runInstallDesktop installs what keeps pathgrant always on for the
// current user, pointing at this binary: on Linux the systemd user units
// (the socket starts the daemon at the first agent call), the desktop
// entry, an XDG autostart entry and the icon; on macOS a launchd user
// agent that runs the headless daemon (installDesktop, one per platform).
// --uninstall stops what it started and removes what it wrote, never the
// store or the config. It prints each file written or removed and each
// service enabled or stopped, one a line.
func runInstallDesktop(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("install-desktop")
	uninstall := fs.Bool("uninstall", false, "stop and remove what install-desktop installed")
	pos, err := parseFlags(fs, args)
	if err == nil && len(pos) > 0 {
		err = usagef("unexpected argument %q", pos[0])
	}
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stdout, installDesktopUsageText)
			return exitOK
		}
		fmt.Fprintln(stderr, installDesktopUsageText)
		return exitUsage
	}
	do := installDesktop
	if *uninstall {
		do = uninstallDesktop
	}
	lines, err := do()
	for _, l := range lines {
		fmt.Fprintln(stdout, l)
	}
	if err != nil {
		return fail(stderr, "install-desktop", err)
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
