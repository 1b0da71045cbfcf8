//go:build !linux || !(amd64 || arm64)

package supervise

import (
	"context"
	"errors"

	"pathgrant/wire"
)

var errUnsupported = errors.New("holding opens needs Linux on amd64 or arm64")

// Asker asks the daemon, on the session's behalf, to read a file a held
// open names, and waits for the person's decision (or ctx).
type Asker interface {
	AskHold(ctx context.Context, r wire.HoldRequest) (wire.HoldAnswer, error)
}

// Supervisor serves one confined command's listener; here it never runs.
type Supervisor struct {
	Roots   []string
	Granted []wire.Scope
	Ask     Asker
	Say     func(line string)
	Limits  Limits
}

// Limits bound what one command can make the supervisor do.
type Limits struct{ Held, PerMinute int }

// Available says this platform cannot hold opens.
func Available() error { return errUnsupported }

// Install fails: there is no filter to install here.
func Install(sock int) error { return errUnsupported }

// Receive fails: no listener comes here.
func Receive(sock int) (int, error) { return -1, errUnsupported }

// Serve returns at once.
func (s *Supervisor) Serve(ctx context.Context, listener int) error { return errUnsupported }

// Refused is empty.
func (s *Supervisor) Refused() []string { return nil }
