package ipc

import (
	"errors"
	"net/http"

	"pathgrant/grants"
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
	if err := s.refuseAgents(r); err != nil {
		writeError(w, err)
		return
	}
	id := r.PathValue("id")
	err := s.Revoke(id)
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
	s.hub.publish(Event{Type: EventGrantRevoked, Time: s.now(), Session: g.Session, GrantID: id})
	return nil
}
