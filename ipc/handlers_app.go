package ipc

import (
	"net/http"

	"pathgrant/wire"
)

// The person's routes that reach past the grants: the sessions that label
// them, remembered denials and the app window.

func (s *Server) handleListDenials(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, s.e.Denials())
}

func (s *Server) handleLiftDenial(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	reply(w, map[string]string{"lifted": id}, s.e.LiftDenial(id))
}

// handleRaise asks the app to show its own window (wire.Raise).
func (s *Server) handleRaise(w http.ResponseWriter, r *http.Request) {
	var req wire.Raise
	if err := decodeStrict(r, &req); err != nil {
		writeError(w, err)
		return
	}
	reply(w, req, s.e.Raise(req.View))
}

func (s *Server) handleListSessions(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, s.e.Sessions())
}
