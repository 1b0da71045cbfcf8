package cli

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"

	"pathgrant/assets"
)

// The systemd user units install-desktop writes: the socket, which
// systemd holds from login, and the service it starts at the first
// connection.
const (
	socketUnitName  = "pathgrant.socket"
	serviceUnitName = "pathgrant.service"
)

// unitMarker opens every unit install-desktop writes, and desktopMarker
// ends every desktop entry it writes: uninstalling removes a file only
// when it carries the marker, never one the person wrote in its place.
const (
	unitMarker    = "# Installed by `pathgrant install-desktop`; `pathgrant install-desktop --uninstall` removes it.\n"
	desktopMarker = "X-Pathgrant-Installed-By=pathgrant install-desktop\n"
)

// socketUnit is the socket unit as installed.
func socketUnit() []byte { return []byte(unitMarker + assets.SocketUnit) }

// serviceUnit is the service unit as installed, its ExecStart naming exe.
func serviceUnit(exe string) ([]byte, error) {
	q, err := systemdQuote(exe)
	if err != nil {
		return nil, fmt.Errorf("service unit: %w", err)
	}
	const from = "ExecStart=pathgrant serve\n"
	if !strings.Contains(assets.ServiceUnit, from) {
		return nil, fmt.Errorf("service unit: no %q line to fill in", strings.TrimSpace(from))
	}
	return []byte(unitMarker + strings.Replace(assets.ServiceUnit, from, "ExecStart="+q+" serve\n", 1)), nil
}

// desktopEntry is the desktop entry as installed, its Exec naming exe.
func desktopEntry(exe string) []byte {
	entry := strings.Replace(assets.DesktopEntry, "Exec=pathgrant", "Exec="+desktopQuote(exe), 1)
	if !strings.HasSuffix(entry, "\n") {
		entry += "\n"
	}
	return []byte(entry + desktopMarker)
}

// systemdQuote writes an absolute path as the first word of a systemd
// command line (systemd.syntax(7), systemd.service(5)): % is a specifier,
// so it is doubled ($ is not expanded in the command's own name, and a $$
// there would stay two); a path with a blank or a semicolon is
// double-quoted. systemd refuses a command name holding a quote, a
// backslash or a control character ("contains special characters"), and
// so does this, before anything is written; and a relative path (systemd
// needs it absolute, and a leading - @ : + ! would change its meaning).
func systemdQuote(p string) (string, error) {
	if !filepath.IsAbs(p) {
		return "", fmt.Errorf("binary %q is not an absolute path", p)
	}
	for _, r := range p {
		if r < 0x20 || r == 0x7f || r == '"' || r == '\'' || r == '\\' {
			return "", fmt.Errorf("binary path %q holds a quote, a backslash or a control character, which systemd cannot start: move the binary", p)
		}
	}
	p = strings.ReplaceAll(p, "%", "%%")
	if !strings.ContainsAny(p, " \t;") {
		return p, nil
	}
	return `"` + p + `"`, nil
}

// installedByUs reports whether data is a file install-desktop wrote:
// a unit opening with unitMarker, a desktop entry carrying desktopMarker
// on a line of its own, or the icon itself.
func installedByUs(data []byte) bool {
	return bytes.HasPrefix(data, []byte(unitMarker)) ||
		bytes.Contains(data, []byte("\n"+desktopMarker)) ||
		bytes.Equal(data, assets.Icon)
}
