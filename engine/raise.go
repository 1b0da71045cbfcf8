package engine

import "pathgrant/wire"

// Raise asks the app window to show view: the person's own window, which
// needs no approval code, so another process never has to open a second
// copy of a prompt. A daemon without a window says so.
func (s *Engine) Raise(view string) *Error {
	if view != wire.ViewInbox && view != wire.ViewSettings {
		return errorf(BadRequest, "", "view %q: want %q or %q", view, wire.ViewInbox, wire.ViewSettings)
	}
	if s.cfg.Raise == nil {
		return errorf(NotFound, "", "this daemon has no app window (it runs headless)")
	}
	if err := s.cfg.Raise(view); err != nil {
		return errorf(Internal, "", "raise the window: %v", err)
	}
	return nil
}
