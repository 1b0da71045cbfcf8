package engine

import (
	"errors"
	"pathgrant/grants"
	"pathgrant/wire"
)

// Revoke revokes a grant (its id or a unique prefix of at least
// grants.MinPrefix characters) and publishes it to the grant's session.
func (s *Engine) Revoke(prefix string) error {
	id, err := s.cfg.Store.ResolveID(prefix)
	if err != nil {
		return err
	}
	g, err := s.cfg.Store.Get(id)
	if err == nil {
		err = s.cfg.Store.Revoke(id)
	}
	if err != nil {
		return err
	}
	s.hub.publish(wire.Event{Type: wire.EventGrantRevoked, Time: s.now(), Session: g.Session, GrantID: id})
	return nil
}

// RevokeSession revokes every live grant approved in session, device
// grants included, in one store transaction (each audited), and publishes
// one grant.revoked event per grant. It returns the revoked grants' ids.
func (s *Engine) RevokeSession(session string) ([]string, error) {
	ended, err := s.cfg.Store.RevokeSessionGrants(session)
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(ended))
	for _, g := range ended {
		ids = append(ids, g.ID)
		s.hub.publish(wire.Event{Type: wire.EventGrantRevoked, Time: s.now(), Session: g.Session, GrantID: g.ID})
	}
	return ids, nil
}

// Grants lists the grants f selects: every session's, for the person.
func (s *Engine) Grants(f grants.Filter) ([]grants.Grant, *Error) {
	gs, err := s.cfg.Store.List(f)
	if err != nil {
		return nil, errorf(Internal, "", "list grants: %v", err)
	}
	return gs, nil
}

// RevokeRefusal is the refusal a Revoke of grant id that ended in err is
// (nil for none): an unknown grant is NotFound, a prefix too short or
// ambiguous BadRequest, one already ended a Conflict.
func RevokeRefusal(id string, err error) *Error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, grants.ErrNotFound):
		return errorf(NotFound, "", "no grant %s", id)
	case errors.Is(err, grants.ErrAmbiguous) || errors.Is(err, grants.ErrTooShort):
		return errorf(BadRequest, "", "%v", err)
	}
	return errorf(Conflict, "", "revoke %s: %v", id, err)
}
