package cli

import (
	"fmt"
	"io"
	"os"
	"syscall"

	"pathgrant/appdirs"
)

// uiBinary is the desktop side of pathgrant, the only binary linking Fyne.
const uiBinary = "pathgrant-ui"

// runUI replaces this process with pathgrant-ui for `settings`, a window
// of this process's own for a headless daemon (the daemon starts the app
// itself: runApp). The CLI stays free of Fyne and starts in a few
// milliseconds. Without a display settings, which is only a window,
// refuses.
func runUI(cmd string) func(args []string, stdout, stderr io.Writer) int {
	return func(args []string, stdout, stderr io.Writer) int {
		if why := appdirs.DisplayMissing(os.Getenv); why != "" {
			return runWithoutDisplay(cmd, why, args, stdout, stderr)
		}
		bin, err := appdirs.FindBinary(uiBinary, os.Getenv)
		if err != nil {
			fmt.Fprintf(stderr, "pathgrant %s: %s\n", cmd, oneLine(err.Error()))
			return 1
		}
		argv := append([]string{bin, cmd}, args...)
		err = syscall.Exec(bin, argv, appdirs.UILocale(os.Environ())) // no Fyne locale error under C.UTF-8
		fmt.Fprintf(stderr, "pathgrant %s: start %s: %v\n", cmd, bin, err)
		return 1
	}
}

// settingsUsage is `pathgrant settings`'s usage line.
const settingsUsage = "usage: pathgrant settings [--socket PATH]"

// runSettings opens the settings window (runUI) once its arguments are
// read here: a flag it does not take is said, with the usage, before
// anything starts (the window's binary, given it, printed the usage and
// no reason).
func runSettings(args []string, stdout, stderr io.Writer) int {
	fs, socket := newDaemonFlags("settings")
	pos, err := parseFlags(fs, args)
	if err == nil && len(pos) > 0 {
		err = usagef("unexpected argument %q: settings takes none", pos[0])
	}
	if err != nil {
		return parseFailed("settings", settingsUsage, err, stdout, stderr)
	}
	var uiArgs []string
	if *socket != "" {
		uiArgs = []string{"--socket", *socket}
	}
	return runUI("settings")(uiArgs, stdout, stderr)
}

// runWithoutDisplay says, in one line, that there is no display and why,
// and for the app (runApp) serves headless exactly as `pathgrant serve
// --headless` would, with the same --socket and --store.
func runWithoutDisplay(cmd, why string, args []string, stdout, stderr io.Writer) int {
	if cmd == "settings" {
		fmt.Fprintf(stderr, "pathgrant settings: no display (%s); use 'pathgrant grants', 'pathgrant audit' and 'pathgrant pending' instead\n", why)
		return 1
	}
	fmt.Fprintf(stderr, "pathgrant: no display (%s): %s\n", why, appdirs.HeadlessHint)
	return runServe(append([]string{"--headless"}, args...), stdout, stderr)
}
