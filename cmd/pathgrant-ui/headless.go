package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
)

// cliBinary is pathgrant's command line, which serves headless.
const cliBinary = "pathgrant"

// headlessHint says how the user decides once the daemon runs without
// windows.
const headlessHint = "running the daemon headless; approve from the CLI with 'pathgrant pending' and 'pathgrant approve ID --scope once|session|device'"

// errNoDisplay is the toolkit failing to start: no display, or a display
// the GL driver cannot use. The app then serves headless.
var errNoDisplay = errors.New("no usable display")

// displayError is the display the toolkit failed on and why, for the one
// line the user reads.
type displayError struct{ display, cause string }

func (e *displayError) Error() string {
	return fmt.Sprintf("cannot use the display %s (%s)", e.display, e.cause)
}
func (e *displayError) Unwrap() error { return errNoDisplay }

// displayEnvSet reports whether the environment names an X11 or Wayland
// display; without one the toolkit cannot start at all.
func displayEnvSet(getenv func(string) string) bool {
	return getenv("DISPLAY") != "" || getenv("WAYLAND_DISPLAY") != ""
}

// displayName is the display the toolkit tries: X11's (the default build)
// when named, else Wayland's.
func displayName(getenv func(string) string) string {
	if x := getenv("DISPLAY"); x != "" {
		return x
	}
	return getenv("WAYLAND_DISPLAY")
}

// startUI runs build, which creates the app's windows and so starts the
// toolkit, turning the panic the GL driver raises when it cannot start
// into a displayError.
func startUI(build func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &displayError{display: displayName(os.Getenv), cause: fmt.Sprint(r)}
		}
	}()
	build()
	return nil
}

// serveHeadless replaces this process with `pathgrant serve --headless`
// on the same socket and store: the same daemon, approvals from the CLI.
// It returns only when that cannot start.
func serveHeadless(socket, store string, why error, stderr io.Writer) error {
	fmt.Fprintf(stderr, "pathgrant: %s: %s\n", oneLine(why.Error()), headlessHint)
	bin, err := findCLI()
	if err != nil {
		return err
	}
	argv := []string{bin, "serve", "--headless"}
	if socket != "" {
		argv = append(argv, "--socket", socket)
	}
	if store != "" {
		argv = append(argv, "--store", store)
	}
	err = syscall.Exec(bin, argv, os.Environ())
	return fmt.Errorf("start %s: %w", bin, err)
}

// findCLI looks next to this binary first, then on PATH, as pathgrant
// looks for pathgrant-ui.
func findCLI() (string, error) {
	if exe, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(exe), cliBinary)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p, nil
		}
	}
	p, err := exec.LookPath(cliBinary)
	if err != nil {
		return "", fmt.Errorf("%s is not installed next to %s or on PATH: %w", cliBinary, os.Args[0], err)
	}
	return p, nil
}
