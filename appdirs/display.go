package appdirs

import "runtime"

// Whether windows can open is read from the environment, by each
// platform's rule; the CLI (before it execs the app) and the app (before
// it takes the socket) ask the same one. Neither rule can tell whether the
// display works: the app falls back to serving headless on its own when
// its toolkit fails to start.

// DisplayMissing says why no window can open here, or "".
func DisplayMissing(getenv Getenv) string { return displayMissingOn(runtime.GOOS, getenv) }

// displayMissingOn is DisplayMissing on goos.
func displayMissingOn(goos string, getenv Getenv) string {
	if goos == darwin {
		return macDisplayMissing(getenv)
	}
	return freedesktopDisplayMissing(getenv)
}

// freedesktopDisplayMissing is Linux's rule: windows need an X11 or
// Wayland display named in the environment.
func freedesktopDisplayMissing(getenv Getenv) string {
	if getenv("DISPLAY") != "" || getenv("WAYLAND_DISPLAY") != "" {
		return ""
	}
	return "DISPLAY and WAYLAND_DISPLAY are unset"
}

// macDisplayMissing is macOS's rule: the window server serves the
// person's login session, which a command started over SSH is not part
// of, whatever DISPLAY says.
func macDisplayMissing(getenv Getenv) string {
	for _, v := range []string{"SSH_CONNECTION", "SSH_TTY"} {
		if getenv(v) != "" {
			return v + " is set: an SSH session cannot open windows"
		}
	}
	return ""
}
