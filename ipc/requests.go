package ipc

import (
	"net/http"
)

func (s *Server) handleListRequests(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, s.queue.pending())
}

func (s *Server) handleGetRequest(w http.ResponseWriter, r *http.Request) {
	req, _, ok := s.queue.get(r.PathValue("id"))
	if !ok {
		writeError(w, errorf(http.StatusNotFound, "", "no approval request %s", r.PathValue("id")))
		return
	}
	writeJSON(w, http.StatusOK, req)
}

// handleDecision applies the user's decision. It refuses any process acting
// for an agent, any malformed or unknown-field body, and any scope the
// request was not eligible for; only then does a grant exist.
func (s *Server) handleDecision(w http.ResponseWriter, r *http.Request) {
	if err := s.refuseAgents(r); err != nil {
		writeError(w, err)
		return
	}
	var dec Decision
	if err := decodeStrict(r, &dec); err != nil {
		writeError(w, err)
		return
	}
	done, err := s.decide(r.PathValue("id"), dec)
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, done)
}

// Decide applies a decision the user made in the daemon's own UI. It is
// the same path as the decision route, minus the HTTP caller checks: the
// UI runs inside the daemon, never under an agent.
func (s *Server) Decide(id string, d Decision) (Request, error) {
	r, err := s.decide(id, d)
	if err != nil {
		return r, err
	}
	return r, nil
}
