package main

import (
	"errors"
	"fmt"
	"os"
)

// errNoDisplay is the toolkit failing to start: no display, or a display
// the GL driver cannot use. The daemon then runs headless.
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
