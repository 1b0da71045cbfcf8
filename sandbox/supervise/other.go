//go:build !linux || !(amd64 || arm64)

package supervise

import (
	"context"
	"errors"
	"fmt"
)

// ErrNotInstalled is wrapped by Install's errors that leave the command
// as it was.
var ErrNotInstalled = errors.New("no supervisor")

var errUnsupported = fmt.Errorf("%w: holding opens needs Linux on amd64 or arm64", ErrNotInstalled)

// reader has nothing to read here.
type reader struct{}

// Available says this platform cannot hold opens.
func Available() error { return errUnsupported }

// Install fails: there is no filter to install here.
func Install(sock int) error { return errUnsupported }

// Receive fails: no listener comes here.
func Receive(sock int) (int, error) { return -1, errUnsupported }

// Serve returns at once.
func (s *Supervisor) Serve(ctx context.Context, listener int) error { return errUnsupported }
