package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"pathgrant/appdirs"
)

// launchctlPath is launchctl by its absolute path, never a $PATH lookup.
const launchctlPath = "/bin/launchctl"

// headlessLogName is the headless daemon's log file in the state folder,
// the name doctor suggests too.
const headlessLogName = "headless.log"

// After a bootout launchd holds the label for a few seconds while the old
// job stops, and a bootstrap of it fails meanwhile (error 5 or 37); the
// bootstrap is retried for up to bootstrapTries × bootstrapPause.
const (
	bootstrapTries = 20
	bootstrapPause = 500 * time.Millisecond
)

// agentHost is what installing the launchd agent takes from the Mac: the
// darwin build fills it from the system, tests with a scratch home, a
// launchctl that records its argv and a sleep that does not wait.
type agentHost struct {
	getenv    appdirs.Getenv
	uid       int
	exe       string                    // this binary's canonical path
	launchctl func(argv []string) error // runs argv (launchctlPath first)
	sleep     func(time.Duration)
}

// installLaunchAgent writes pathgrant's agent plist in
// ~/Library/LaunchAgents and loads it in the user's GUI domain, replacing
// the one loaded before, so running it again is harmless. It returns the
// plist's path and the service it loaded.
func installLaunchAgent(h agentHost) ([]string, error) {
	home, err := appdirs.Home(h.getenv)
	if err != nil {
		return nil, err
	}
	logDir, err := agentLogFolder(h.getenv)
	if err != nil {
		return nil, err
	}
	data, err := daemonAgent(h.exe, filepath.Join(logDir, headlessLogName), launchdEnv(h.getenv)("TMPDIR")).plist()
	if err != nil {
		return nil, fmt.Errorf("launchd agent for %s: %w", h.exe, err)
	}
	path := filepath.Join(home, "Library", "LaunchAgents", agentLabel+".plist")
	if err := refuseSymlink(path); err != nil {
		return nil, err
	}
	// launchd opens the log but does not create its folder.
	if err := os.MkdirAll(logDir, 0o700); err != nil {
		return nil, fmt.Errorf("create %s: %w", logDir, err)
	}
	if err := writeFileAtomic(path, data); err != nil {
		return nil, err
	}
	domain := fmt.Sprintf("gui/%d", h.uid)
	if err := h.load(domain, path); err != nil {
		return []string{path}, err
	}
	return []string{path, domain + "/" + agentLabel}, nil
}

// load boots out the agent when it is loaded (the error when it is not is
// expected and ignored: a real failure shows in the bootstrap) and
// bootstraps the plist, retrying while launchd still holds the label it
// just booted out.
func (h agentHost) load(domain, plist string) error {
	tries := 1
	if h.launchctl([]string{launchctlPath, "bootout", domain + "/" + agentLabel}) == nil {
		tries = bootstrapTries
	}
	var err error
	for i := range tries {
		if i > 0 {
			h.sleep(bootstrapPause)
		}
		if err = h.launchctl([]string{launchctlPath, "bootstrap", domain, plist}); err == nil {
			return nil
		}
	}
	return fmt.Errorf("load %s: %w", plist, err)
}

// agentLogFolder is the state folder of the daemon launchd starts: the
// default store's folder, which the guard protects and every confined
// command's view hides, so the approval codes the headless daemon logs
// stay with the person. It is found from launchd's environment, not this
// shell's: the agent's daemon never sees a PATHGRANT_STORE or XDG
// variable set here.
func agentLogFolder(getenv appdirs.Getenv) (string, error) {
	store, err := appdirs.DefaultStore(launchdEnv(getenv))
	if err != nil {
		return "", err
	}
	return filepath.Dir(store), nil
}

// launchdEnv is getenv limited to what launchd gives every user agent
// and appdirs reads: HOME and TMPDIR.
func launchdEnv(getenv appdirs.Getenv) appdirs.Getenv {
	return func(key string) string {
		if key == "HOME" || key == "TMPDIR" {
			return getenv(key)
		}
		return ""
	}
}

// refuseSymlink refuses a plist path that is a symbolic link: it is the
// person's own arrangement (a plist kept with their dotfiles), which a
// rename would silently cut and a write through it would change
// elsewhere.
func refuseSymlink(path string) error {
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return nil
	}
	return fmt.Errorf("%s is a symbolic link: not replacing it (remove it, then run pathgrant install-desktop again)", path)
}

// uninstallLaunchAgent boots pathgrant's agent out of the user's GUI
// domain (an agent not loaded is nothing to stop) and removes its plist
// when it is pathgrant's: a regular file naming agentLabel. Anything else
// at that path is the person's and stays. The store, the log and the
// config are never touched.
func uninstallLaunchAgent(h agentHost) ([]string, error) {
	home, err := appdirs.Home(h.getenv)
	if err != nil {
		return nil, err
	}
	var lines []string
	service := fmt.Sprintf("gui/%d/%s", h.uid, agentLabel)
	if h.launchctl([]string{launchctlPath, "bootout", service}) == nil {
		lines = append(lines, "stopped "+service)
	}
	path := filepath.Join(home, "Library", "LaunchAgents", agentLabel+".plist")
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return lines, nil
	case err != nil:
		return lines, fmt.Errorf("read %s: %w", path, err)
	case !fi.Mode().IsRegular():
		return append(lines, "left "+path+": not a file install-desktop wrote"), nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return lines, fmt.Errorf("read %s: %w", path, err)
	}
	if !strings.Contains(string(data), "<key>Label</key>\n\t<string>"+agentLabel+"</string>") {
		return append(lines, "left "+path+": not written by pathgrant install-desktop"), nil
	}
	if err := os.Remove(path); err != nil {
		return lines, fmt.Errorf("remove %s: %w", path, err)
	}
	return append(lines, "removed "+path), nil
}
