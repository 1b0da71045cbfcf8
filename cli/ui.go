package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
)

// uiBinary is the desktop side of pathgrant, the only binary linking Fyne.
const uiBinary = "pathgrant-ui"

// noDisplayHint is the second half of the one line the app prints when it
// falls back to the headless daemon: how the user decides without windows.
const noDisplayHint = "running the daemon headless; approve from the CLI with 'pathgrant pending' and 'pathgrant approve ID --scope once|session|device'"

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
		bin, err := findUI()
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
	fmt.Fprintln(stderr, "pathgrant: no display (DISPLAY and WAYLAND_DISPLAY are unset): "+noDisplayHint)
	return runServe(append([]string{"--headless"}, args...), stdout, stderr)
}

// findUI looks next to this binary first, then on PATH.
func findUI() (string, error) {
	if exe, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(exe), uiBinary)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p, nil
		}
	}
	p, err := exec.LookPath(uiBinary)
	if err != nil {
		return "", errors.New(uiBinary + " is not installed next to pathgrant or on PATH (scripts/run builds it)")
	}
	return p, nil
}
