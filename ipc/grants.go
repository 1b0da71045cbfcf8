package ipc

import (
	"errors"
	"net/http"

	"pathgrant/grants"
	"pathgrant/wire"
)

func (s *Server) handleListGrants(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	gs, err := s.cfg.Store.List(grants.Filter{Session: q.Get("session"), IncludeRevoked: q.Get("all") == "1", IncludeExpired: q.Get("all") == "1"})
	if err != nil {
		writeError(w, errorf(http.StatusInternalServerError, "", "list grants: %v", err))
		return
	}
	writeJSON(w, http.StatusOK, gs)
}

func (s *Server) handleRevoke(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	writeRevoked(w, id, s.Revoke(id))
}

// writeRevoked answers a revoke of grant id that ended in err.
func writeRevoked(w http.ResponseWriter, id string, err error) {
	switch {
	case errors.Is(err, grants.ErrNotFound):
		writeError(w, errorf(http.StatusNotFound, "", "no grant %s", id))
	case err != nil:
		writeError(w, errorf(http.StatusConflict, "", "revoke %s: %v", id, err))
	default:
		writeJSON(w, http.StatusOK, map[string]string{"revoked": id})
	}
}

// Revoke revokes a grant and publishes it to the grant's session.
func (s *Server) Revoke(id string) error {
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

// handleRevokeSession revokes every live grant approved in a session, in
// one step. Like revoking one grant, it is person-only: a session revokes
// its own through DELETE /s/{session}/v1/grants.
func (s *Server) handleRevokeSession(w http.ResponseWriter, r *http.Request) {
	session := r.PathValue("id")
	ids, err := s.RevokeSession(session)
	if err != nil {
		writeError(w, errorf(http.StatusInternalServerError, "", "%v", err))
		return
	}
	writeJSON(w, http.StatusOK, wire.RevokedSession{Session: session, Revoked: ids})
}

// RevokeSession revokes every live grant approved in session, device
// grants included, in one store transaction (each audited), and publishes
// one grant.revoked event per grant. It returns the revoked grants' ids.
func (s *Server) RevokeSession(session string) ([]string, error) {
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
