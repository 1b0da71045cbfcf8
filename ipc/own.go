package ipc

import (
	"errors"
	"net/http"

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

// handleOwnRequests answers one page of the session's pending requests.
func (s *Server) handleOwnRequests(w http.ResponseWriter, r *http.Request, c sessionCall) {
	var own []wire.Request
	for _, req := range s.queue.pending() {
		if req.Session == c.sess.ID {
			own = append(own, req)
		}
	}
	writePage(w, r, own)
}

// ownRequest is the session's request named in the path, or 404.
func (s *Server) ownRequest(r *http.Request, c sessionCall) (wire.Request, *apiError) {
	id := r.PathValue("id")
	req, _, ok := s.queue.get(id)
	if !ok || req.Session != c.sess.ID {
		return wire.Request{}, errorf(http.StatusNotFound, "", "no approval request %s in session %s", id, c.sess.ID)
	}
	return req, nil
}

func (s *Server) handleOwnRequest(w http.ResponseWriter, r *http.Request, c sessionCall) {
	req, err := s.ownRequest(r, c)
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, req)
}

// handleOwnDeny denies one of the session's own requests: no code is
// needed to give up an access. The audit record says who denied it.
func (s *Server) handleOwnDeny(w http.ResponseWriter, r *http.Request, c sessionCall) {
	s.decideMu.Lock()
	defer s.decideMu.Unlock()
	req, err := s.ownRequest(r, c)
	switch {
	case err != nil:
	case req.State != wire.StatePending:
		err = errorf(http.StatusConflict, "", "approval request %s is already %s", req.ID, req.State)
	default:
		req, err = s.finish(req.ID, wire.StateDenied, "deny", "", "denied by its own session")
	}
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, req)
}

// handleOwnGrants lists the grants approved in the session (?all=1 adds
// the ended and expired ones).
func (s *Server) handleOwnGrants(w http.ResponseWriter, r *http.Request, c sessionCall) {
	all := r.URL.Query().Get("all") == "1"
	gs, err := s.cfg.Store.List(grants.Filter{Session: c.sess.ID, IncludeRevoked: all, IncludeExpired: all})
	if err != nil {
		writeError(w, errorf(http.StatusInternalServerError, "", "list grants: %v", err))
		return
	}
	writeJSON(w, http.StatusOK, gs)
}

// handleOwnRevoke revokes one grant approved in the session.
func (s *Server) handleOwnRevoke(w http.ResponseWriter, r *http.Request, c sessionCall) {
	id := r.PathValue("id")
	g, err := s.cfg.Store.Get(id)
	switch {
	case errors.Is(err, grants.ErrNotFound) || (err == nil && g.Session != c.sess.ID):
		writeError(w, errorf(http.StatusNotFound, "", "no grant %s in session %s", id, c.sess.ID))
	case err != nil:
		writeError(w, errorf(http.StatusInternalServerError, "", "grant %s: %v", id, err))
	default:
		writeRevoked(w, id, s.Revoke(id))
	}
}

// handleOwnRevokeAll revokes every live grant approved in the session.
func (s *Server) handleOwnRevokeAll(w http.ResponseWriter, r *http.Request, c sessionCall) {
	ids, err := s.RevokeSession(c.sess.ID)
	if err != nil {
		writeError(w, errorf(http.StatusInternalServerError, "", "%v", err))
		return
	}
	writeJSON(w, http.StatusOK, wire.RevokedSession{Session: c.sess.ID, Revoked: ids})
}
