package ipc

import (
	"net/http"
	"time"

	"pathgrant/grants"
)

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
	recs, err := s.cfg.Store.AuditRecords(f)
	if err != nil {
		writeError(w, errorf(http.StatusInternalServerError, "", "audit: %v", err))
		return
	}
	writeJSON(w, http.StatusOK, recs)
}

// audit appends rec; a failure is logged, never shown to the caller as
// success of anything else.
func (s *Server) audit(rec grants.Record) {
	if err := s.cfg.Store.Audit(rec); err != nil {
		s.log.Error("audit append failed", "kind", rec.Kind, "err", err)
	}
}
