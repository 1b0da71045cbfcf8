package engine

import (
	"pathgrant/wire"
)

// Request is one approval request, pending or ended, as the person sees
// it in process (the app's windows).
// id may be a unique prefix of at least grants.MinPrefix characters.
func (s *Engine) Request(id string) (wire.Request, bool) {
	full, err := s.queue.resolve(id)
	if err != nil {
		return wire.Request{}, false
	}
	r, _, ok := s.queue.get(full)
	return r, ok
}

// Decide applies a decision the person made in the daemon's own windows
// (the prompt, the settings window), in process. It is the same path as
// the decision route minus the caller checks and the code: those windows
// run inside the daemon, never under an agent, and are where the code is
// shown.
func (s *Engine) Decide(id string, d wire.Decision) (wire.Request, error) {
	r, err := s.decide(id, d, byPerson)
	if err != nil {
		return r, err
	}
	return r, nil
}

// Pending lists the approval requests waiting for the person, oldest
// first.
func (s *Engine) Pending() []wire.Request { return s.queue.pending() }

// DecideWithCode applies a decision sent over the socket: approving needs
// the one-time code of the choice it makes, and may not go beyond that
// choice; the transport has already refused any caller under an agent.
func (s *Engine) DecideWithCode(id string, d wire.Decision) (wire.Request, *Error) {
	return s.decide(id, d, byCode)
}
