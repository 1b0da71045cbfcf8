package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"pathgrant/appdirs"
	"pathgrant/assets"
)

// installDesktopSummary is install-desktop's line in `pathgrant help`.
const installDesktopSummary = "keep pathgrant always on for this user: systemd user units (the first agent call starts the daemon), desktop and autostart entries, icon (--uninstall removes them)"

// noManager is what install-desktop says when no systemd user manager
// answers (CI, a container, WSL without systemd): one line, and what to
// run instead.
const noManager = "no systemd user manager answers (systemctl --user): the units are written but not enabled; start pathgrant with `pathgrant serve` (from your session's startup, to keep it on), or run `systemctl --user enable --now " + socketUnitName + "` once a user manager runs"

// desktopHost is what installing takes from the machine: the Linux build
// fills it from the system, tests with a scratch home and a systemctl
// that records its arguments.
type desktopHost struct {
	getenv appdirs.Getenv
	exe    string // this binary, absolute
	// systemctl runs `systemctl --user ARGS`, its output part of the error.
	systemctl func(args ...string) error
}

func systemHost() (desktopHost, error) {
	exe, err := os.Executable()
	if err != nil {
		return desktopHost{}, fmt.Errorf("find this binary: %w", err)
	}
	return desktopHost{getenv: os.Getenv, exe: exe, systemctl: runSystemctl}, nil
}

// runSystemctl runs systemctl --user, found on PATH.
func runSystemctl(args ...string) error {
	argv := append([]string{"--user"}, args...)
	out, err := exec.Command("systemctl", argv...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("systemctl %s: %w: %s", strings.Join(argv, " "), err, oneLine(strings.TrimSpace(string(out))))
	}
	return nil
}

func installDesktop() ([]string, error) {
	h, err := systemHost()
	if err != nil {
		return nil, err
	}
	return h.install()
}

func uninstallDesktop() ([]string, error) {
	h, err := systemHost()
	if err != nil {
		return nil, err
	}
	return h.uninstall()
}

// desktopFile is one file install-desktop writes.
type desktopFile struct {
	path string
	data []byte
}

// files are the units, the desktop entry, the same entry for XDG
// autostart, and the icon, each naming this binary.
func (h desktopHost) files() ([]desktopFile, error) {
	home, err := appdirs.Home(h.getenv)
	if err != nil {
		return nil, err
	}
	data, config := appdirs.DataHome(h.getenv, home), appdirs.ConfigHome(h.getenv, home)
	service, err := serviceUnit(h.exe)
	if err != nil {
		return nil, err
	}
	entry, units := desktopEntry(h.exe), filepath.Join(config, "systemd", "user")
	return []desktopFile{
		{filepath.Join(units, socketUnitName), socketUnit()},
		{filepath.Join(units, serviceUnitName), service},
		{filepath.Join(data, "applications", "pathgrant.desktop"), entry},
		{filepath.Join(config, "autostart", "pathgrant.desktop"), entry},
		{filepath.Join(data, "icons", "hicolor", "64x64", "apps", "pathgrant.png"), assets.Icon},
	}, nil
}

// install writes every file, then has the user manager, when one
// answers, load the units and listen on the socket from now on.
func (h desktopHost) install() ([]string, error) {
	files, err := h.files()
	if err != nil {
		return nil, err
	}
	var lines []string
	for _, f := range files {
		if err := writeFileAtomic(f.path, f.data); err != nil {
			return lines, err
		}
		lines = append(lines, f.path)
	}
	if !h.managerAnswers() {
		return append(lines, noManager), nil
	}
	if err := h.systemctl("daemon-reload"); err != nil {
		return lines, fmt.Errorf("reload the user units: %w", err)
	}
	if err := h.systemctl("enable", "--now", socketUnitName); err != nil {
		return lines, fmt.Errorf("enable %s: %w", socketUnitName, err)
	}
	return append(lines, "enabled and started "+socketUnitName+" (the first agent call starts "+serviceUnitName+")"), nil
}

// uninstall stops and disables the units when a manager answers, then
// removes each file install-desktop wrote; a file in its place without
// the marker is the person's and stays. The store and the config are
// never touched.
func (h desktopHost) uninstall() ([]string, error) {
	files, err := h.files()
	if err != nil {
		return nil, err
	}
	var lines []string
	manager := h.managerAnswers()
	if manager && h.unitsPresent(files[:2]) {
		if err := h.systemctl("disable", "--now", socketUnitName, serviceUnitName); err != nil {
			return nil, fmt.Errorf("stop and disable the units: %w", err)
		}
		lines = append(lines, "stopped and disabled "+socketUnitName+" and "+serviceUnitName)
	}
	for _, f := range files {
		line, err := removeOurs(f.path)
		if err != nil {
			return lines, err
		}
		if line != "" {
			lines = append(lines, line)
		}
	}
	if !manager {
		return append(lines, "no systemd user manager answers (systemctl --user): nothing to stop"), nil
	}
	if err := h.systemctl("daemon-reload"); err != nil {
		return lines, fmt.Errorf("reload the user units: %w", err)
	}
	return lines, nil
}

// managerAnswers reports whether a systemd user manager answers.
func (h desktopHost) managerAnswers() bool {
	return h.systemctl("show-environment") == nil
}

// unitsPresent reports whether any of the unit files is there to disable.
func (h desktopHost) unitsPresent(units []desktopFile) bool {
	for _, u := range units {
		if _, err := os.Lstat(u.path); err == nil {
			return true
		}
	}
	return false
}

// removeOurs removes path when install-desktop wrote it, and says what it
// did: "" when there is nothing there.
func removeOurs(path string) (string, error) {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return "left " + path + ": not a file install-desktop wrote", nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	if !installedByUs(data) {
		return "left " + path + ": not written by pathgrant install-desktop", nil
	}
	if err := os.Remove(path); err != nil {
		return "", fmt.Errorf("remove %s: %w", path, err)
	}
	return "removed " + path, nil
}
