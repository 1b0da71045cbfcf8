package ipc

import (
	"net/http"
)

// A session's own credentials see and act on its own requests and grants
// only, through the /s/{session}/ forms of the person-only routes: its
// pending requests, one of them, denying one, its grants, and revoking
// them. A request or grant of another session is answered as unknown
// (404), never shown or changed, so an agent learns nothing of the
// others. Approving stays with the person: a session may deny its own
// request, never approve it.

func (s *Server) handleOwnRequests(w http.ResponseWriter, r *http.Request, c sessionCall) {
	writePage(w, r, s.e.OwnRequests(c.Call))
}

func (s *Server) handleOwnRequest(w http.ResponseWriter, r *http.Request, c sessionCall) {
	req, err := s.e.OwnRequest(c.Call, r.PathValue("id"))
	reply(w, req, err)
}

func (s *Server) handleOwnDeny(w http.ResponseWriter, r *http.Request, c sessionCall) {
	req, err := s.e.OwnDeny(c.Call, r.PathValue("id"))
	reply(w, req, err)
}

func (s *Server) handleOwnGrants(w http.ResponseWriter, r *http.Request, c sessionCall) {
	gs, err := s.e.OwnGrants(c.Call, r.URL.Query().Get("all") == "1")
	reply(w, gs, err)
}

func (s *Server) handleOwnRevoke(w http.ResponseWriter, r *http.Request, c sessionCall) {
	id := r.PathValue("id")
	reply(w, map[string]string{"revoked": id}, s.e.OwnRevoke(c.Call, id))
}

func (s *Server) handleOwnRevokeAll(w http.ResponseWriter, _ *http.Request, c sessionCall) {
	out, err := s.e.OwnRevokeAll(c.Call)
	reply(w, out, err)
}
