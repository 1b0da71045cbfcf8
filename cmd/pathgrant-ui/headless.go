package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"

	"pathgrant/appdirs"
)

// cliBinary is pathgrant's command line, which serves headless.
const cliBinary = "pathgrant"

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
	fmt.Fprintf(stderr, "pathgrant: %s: %s\n", oneLine(why.Error()), appdirs.HeadlessHint)
	bin, err := appdirs.FindBinary(cliBinary, os.Getenv)
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
