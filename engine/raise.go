package engine

import (
	"errors"

	"pathgrant/wire"
)

// ErrNoWindow is a daemon that cannot show a window now (no display for
// its app): the person's own process then shows one (`pathgrant
// settings`), as for a headless daemon.
var ErrNoWindow = errors.New("this daemon has no app window")

// Raise asks the app window to show view: the person's own window, which
// needs no approval code, so another process never has to open a second
// copy of a prompt. A daemon without a window says so.
func (s *Engine) Raise(view string) *Error {
	if view != wire.ViewInbox && view != wire.ViewSettings {
		return errorf(BadRequest, "", "view %q: want %q or %q", view, wire.ViewInbox, wire.ViewSettings)
	}
	if s.cfg.Raise == nil {
		return errorf(NotFound, "", "%v (it runs headless)", ErrNoWindow)
	}
	err := s.cfg.Raise(view)
	switch {
	case errors.Is(err, ErrNoWindow):
		return errorf(NotFound, "", "%v", err)
	case err != nil:
		return errorf(Internal, "", "raise the window: %v", err)
	}
	return nil
}
