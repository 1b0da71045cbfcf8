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

// runUI replaces this process with pathgrant-ui for the commands that show
// windows: the tray app (`pathgrant`, `pathgrant app`) and `settings`. The
// CLI stays free of Fyne and starts in a few milliseconds. Without a
// display the app runs the headless daemon in this process instead, since
// a server or an SSH session still needs pathgrant; settings, which is only
// a window, refuses.
func runUI(cmd string) func(args []string, stdout, stderr io.Writer) int {
	return func(args []string, stdout, stderr io.Writer) int {
		if !displayAvailable(os.Getenv) {
			return runWithoutDisplay(cmd, args, stdout, stderr)
		}
		bin, err := appdirs.FindBinary(uiBinary, os.Getenv)
		if err != nil {
			fmt.Fprintf(stderr, "pathgrant %s: %s\n", cmd, oneLine(err.Error()))
			return 1
		}
		argv := append([]string{bin, cmd}, args...)
		err = syscall.Exec(bin, argv, os.Environ())
		fmt.Fprintf(stderr, "pathgrant %s: start %s: %v\n", cmd, bin, err)
		return 1
	}
}

// displayAvailable reports whether the environment names an X11 or Wayland
// display. It cannot tell whether the display works: pathgrant-ui falls
// back on its own when its toolkit fails to start.
func displayAvailable(getenv func(string) string) bool {
	return getenv("DISPLAY") != "" || getenv("WAYLAND_DISPLAY") != ""
}

// runWithoutDisplay says, in one line, that there is no display, and for
// the app serves headless exactly as `pathgrant serve --headless` would,
// with the same --socket and --store.
func runWithoutDisplay(cmd string, args []string, stdout, stderr io.Writer) int {
	if cmd == "settings" {
		fmt.Fprintln(stderr, "pathgrant settings: no display (DISPLAY and WAYLAND_DISPLAY are unset); use 'pathgrant grants', 'pathgrant audit' and 'pathgrant pending' instead")
		return 1
	}
	fmt.Fprintln(stderr, "pathgrant: no display (DISPLAY and WAYLAND_DISPLAY are unset): "+appdirs.HeadlessHint)
	return runServe(append([]string{"--headless"}, args...), stdout, stderr)
}
