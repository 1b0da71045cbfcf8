package engine

import (
	"errors"
	"pathgrant/grants"
	"pathgrant/wire"
)

// A session's own credentials see and act on its own requests and grants
// only, through the /s/{session}/ forms of the person-only routes: its
// pending requests, one of them, denying one, its grants, and revoking
// them. A request or grant of another session is answered as unknown
// (404), never shown or changed, so an agent learns nothing of the
// others. Approving stays with the person: a session may deny its own
// request, never approve it.

// OwnRequests are the call's session's pending requests, oldest first.
func (s *Engine) OwnRequests(c Call) []wire.Request {
	var own []wire.Request
	for _, req := range s.queue.pending() {
		if req.Session == c.sess.ID {
			own = append(own, req)
		}
	}
	return own
}

// OwnRequest is the call's session's request id, or NotFound.
func (s *Engine) OwnRequest(c Call, id string) (wire.Request, *Error) {
	req, _, ok := s.queue.get(id)
	if !ok || req.Session != c.sess.ID {
		return wire.Request{}, errorf(NotFound, "", "no approval request %s in session %s", id, c.sess.ID)
	}
	return req, nil
}

// OwnDeny denies one of the session's own requests: no code is needed to
// give up an access. The audit record says who denied it.
func (s *Engine) OwnDeny(c Call, id string) (wire.Request, *Error) {
	s.decideMu.Lock()
	defer s.decideMu.Unlock()
	req, err := s.OwnRequest(c, id)
	switch {
	case err != nil:
		return req, err
	case req.State != wire.StatePending:
		return req, errorf(Conflict, "", "approval request %s is already %s", req.ID, req.State)
	}
	return s.finish(req.ID, wire.StateDenied, "deny", "", "denied by its own session")
}

// OwnGrants lists the grants approved in the call's session (all: the
// ended and expired ones too).
func (s *Engine) OwnGrants(c Call, all bool) ([]grants.Grant, *Error) {
	return s.Grants(grants.Filter{Session: c.sess.ID, IncludeRevoked: all, IncludeExpired: all})
}

// OwnRevoke revokes one grant approved in the call's session; another
// session's is NotFound.
func (s *Engine) OwnRevoke(c Call, id string) *Error {
	g, err := s.cfg.Store.Get(id)
	switch {
	case errors.Is(err, grants.ErrNotFound) || (err == nil && g.Session != c.sess.ID):
		return errorf(NotFound, "", "no grant %s in session %s", id, c.sess.ID)
	case err != nil:
		return errorf(Internal, "", "grant %s: %v", id, err)
	}
	return RevokeRefusal(id, s.Revoke(id))
}

// OwnRevokeAll revokes every live grant approved in the call's session.
func (s *Engine) OwnRevokeAll(c Call) (wire.RevokedSession, *Error) {
	ids, err := s.RevokeSession(c.sess.ID)
	if err != nil {
		return wire.RevokedSession{}, errorf(Internal, "", "%v", err)
	}
	return wire.RevokedSession{Session: c.sess.ID, Revoked: ids}, nil
}
