package appdirs

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
)

// darwin is runtime.GOOS on macOS. Each place that differs there is a pure
// function of the OS name, so that tests on Linux pin the macOS answers;
// the exported functions pass runtime.GOOS.
const darwin = "darwin"

// appSupport is where macOS keeps an application's own files: state and
// configuration alike (there is no XDG on macOS unless the person sets it).
const appSupport = "Library/Application Support"

// configDirOn is pathgrant's config folder on goos: $XDG_CONFIG_HOME/pathgrant
// when that variable is absolute; else ~/.config/pathgrant on Linux and
// ~/Library/Application Support/pathgrant on macOS.
func configDirOn(goos string, getenv Getenv, home string) string {
	if goos == darwin && !filepath.IsAbs(getenv("XDG_CONFIG_HOME")) {
		return filepath.Join(home, appSupport, name)
	}
	return filepath.Join(ConfigHome(getenv, home), name)
}

// stateDirOn is the folder the store goes in on goos: $XDG_STATE_HOME/pathgrant
// when that variable is absolute; else ~/.local/state/pathgrant on Linux and
// ~/Library/Application Support/pathgrant on macOS.
func stateDirOn(goos string, getenv Getenv, home string) string {
	if goos == darwin && !filepath.IsAbs(getenv("XDG_STATE_HOME")) {
		return filepath.Join(home, appSupport, name)
	}
	return filepath.Join(StateHome(getenv, home), name)
}

// runtimeDirOn is the socket's folder on goos: $XDG_RUNTIME_DIR when it is
// absolute, else pathgrant-UID in the temporary folder. That folder is
// os.TempDir on Linux (as it always was); on macOS it is $TMPDIR, the
// per-user folder under /var/folders that launchd gives each login, read
// from getenv so that the answer follows the environment it is asked for.
func runtimeDirOn(goos string, getenv Getenv, uid int) string {
	if dir := getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(dir) {
		return dir
	}
	tmp := os.TempDir()
	if goos == darwin {
		tmp = "/tmp"
		if dir := getenv("TMPDIR"); filepath.IsAbs(dir) {
			tmp = filepath.Clean(dir)
		}
	}
	return filepath.Join(tmp, fmt.Sprintf("%s-%d", name, uid))
}

// downloadsOn is the Downloads folder on goos: on macOS always
// ~/Downloads (the Finder's folder; macOS has no user-dirs.dirs), on Linux
// what user-dirs.dirs says (userDownloads).
func downloadsOn(goos string, getenv Getenv, home string) string {
	if goos == darwin {
		return filepath.Join(home, "Downloads")
	}
	return userDownloads(getenv, home)
}

// ConfigDir is pathgrant's config folder, where the device policy file is
// (configDirOn): ~/.config/pathgrant on Linux, ~/Library/Application
// Support/pathgrant on macOS, $XDG_CONFIG_HOME/pathgrant on both when set.
func ConfigDir(getenv Getenv, home string) string {
	return configDirOn(runtime.GOOS, getenv, home)
}

// StateDir is the folder the store goes in (stateDirOn):
// ~/.local/state/pathgrant on Linux, ~/Library/Application Support/pathgrant
// on macOS, $XDG_STATE_HOME/pathgrant on both when set.
func StateDir(getenv Getenv, home string) string {
	return stateDirOn(runtime.GOOS, getenv, home)
}

// RuntimeDir is the folder the socket goes in: $XDG_RUNTIME_DIR (on Linux
// a per-user tmpfs the session manager creates 0700), else
// pathgrant-$UID in the temporary folder ($TMPDIR on macOS), which the
// daemon creates 0700 itself.
func RuntimeDir(getenv Getenv) string {
	return runtimeDirOn(runtime.GOOS, getenv, os.Getuid())
}

// Downloads is the user's Downloads folder (downloadsOn): reads under it
// are what a session may ask the person to approve by default.
func Downloads(getenv Getenv, home string) string {
	return downloadsOn(runtime.GOOS, getenv, home)
}
