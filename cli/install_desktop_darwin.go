package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// installDesktopSummary is install-desktop's line in `pathgrant help`.
const installDesktopSummary = "keep pathgrant always on for this user: a launchd user agent that runs the headless daemon at login (--uninstall removes it)"

// installDesktop installs and loads the launchd agent that runs this
// binary as the headless daemon.
func installDesktop() ([]string, error) {
	exe, err := canonicalExecutable()
	if err != nil {
		return nil, err
	}
	return installLaunchAgent(agentHost{getenv: os.Getenv, uid: os.Getuid(), exe: exe,
		launchctl: runLaunchctl, sleep: time.Sleep})
}

// uninstallDesktop stops the launchd agent and removes its plist.
func uninstallDesktop() ([]string, error) {
	return uninstallLaunchAgent(agentHost{getenv: os.Getenv, uid: os.Getuid(), launchctl: runLaunchctl, sleep: time.Sleep})
}

// canonicalExecutable is this binary with its links resolved: the agent
// names the file itself, as the MCP bridge's registration does.
func canonicalExecutable() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find this binary: %w", err)
	}
	real, err := filepath.EvalSymlinks(exe)
	if err != nil {
		return "", fmt.Errorf("find this binary %s: %w", exe, err)
	}
	return real, nil
}

// runLaunchctl runs launchctl, its output part of the error when it fails.
func runLaunchctl(argv []string) error {
	out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s: %w: %s", strings.Join(argv, " "), err, oneLine(strings.TrimSpace(string(out))))
	}
	return nil
}
