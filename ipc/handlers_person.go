package ipc

import (
	"net/http"
	"time"

	"pathgrant/engine"
	"pathgrant/grants"
	"pathgrant/wire"
)

// The handlers of the person's routes (servePerson has refused any
// caller under an agent before they run) and of health.

func (s *Server) handleHealth(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, s.e.Health())
}

func (s *Server) handleListRequests(w http.ResponseWriter, r *http.Request) {
	writePage(w, r, s.e.Pending())
}

func (s *Server) handleGetRequest(w http.ResponseWriter, r *http.Request) {
	req, ok := s.e.Request(r.PathValue("id"))
	if !ok {
		writeError(w, errorf(http.StatusNotFound, "", "no approval request %s", r.PathValue("id")))
		return
	}
	writeJSON(w, http.StatusOK, req)
}

// handleDecision applies a decision sent over the socket: it refuses any
// malformed, unknown-field or duplicate-key body, and the engine an
// approval without the request's code or above what the person was
// offered, and any scope the request was not eligible for.
func (s *Server) handleDecision(w http.ResponseWriter, r *http.Request) {
	var dec wire.Decision
	if err := decodeStrict(r, &dec); err != nil {
		writeError(w, err)
		return
	}
	done, err := s.e.DecideWithCode(r.PathValue("id"), dec)
	reply(w, done, err)
}

func (s *Server) handleListGrants(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	all := q.Get("all") == "1"
	gs, err := s.e.Grants(grants.Filter{Session: q.Get("session"), IncludeRevoked: all, IncludeExpired: all})
	reply(w, gs, err)
}

func (s *Server) handleRevoke(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	reply(w, map[string]string{"revoked": id}, engine.RevokeRefusal(id, s.e.Revoke(id)))
}

// handleRevokeSession revokes every live grant approved in a session, in
// one step. Like revoking one grant, it is person-only: a session revokes
// its own through DELETE /s/{session}/v1/grants.
func (s *Server) handleRevokeSession(w http.ResponseWriter, r *http.Request) {
	session := r.PathValue("id")
	ids, err := s.e.RevokeSession(session)
	if err != nil {
		writeError(w, errorf(http.StatusInternalServerError, "", "%v", err))
		return
	}
	writeJSON(w, http.StatusOK, wire.RevokedSession{Session: session, Revoked: ids})
}

func (s *Server) handleAudit(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := grants.AuditFilter{Session: q.Get("session"), Kind: grants.Kind(q.Get("kind"))}
	if since := q.Get("since"); since != "" {
		t, err := time.Parse(time.RFC3339, since)
		if err != nil {
			writeError(w, errorf(http.StatusBadRequest, "", "since: want RFC 3339: %v", err))
			return
		}
		f.Since = t
	}
	recs, err := s.e.AuditRecords(f)
	reply(w, recs, err)
}
