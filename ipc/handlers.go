package ipc

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"pathgrant/grants"
)

func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "pending": len(s.queue.pending()), "paused": s.paused.Load()})
}

// handleEvents streams one session's events as server-sent events until
// the client goes away or the daemon shuts down.
func (s *Server) handleEvents(w http.ResponseWriter, r *http.Request, c sessionCall) {
	sess := c.sess
	rc := http.NewResponseController(w)
	events, cancel := s.hub.subscribe(sess.ID)
	defer cancel()
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	_ = rc.Flush()
	ping := time.NewTicker(15 * time.Second)
	defer ping.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case ev := <-events:
			if writeEvent(w, rc, ev) != nil {
				return
			}
		case <-ping.C:
			if _, err := fmt.Fprint(w, ": ping\n\n"); err != nil || rc.Flush() != nil {
				return
			}
		}
	}
}

func writeEvent(w http.ResponseWriter, rc *http.ResponseController, ev Event) error {
	data, err := json.Marshal(ev)
	if err != nil {
		return err
	}
	_ = rc.SetWriteDeadline(time.Now().Add(5 * time.Second))
	if _, err := fmt.Fprintf(w, "event: %s\ndata: %s\n\n", ev.Type, data); err != nil {
		return err
	}
	return rc.Flush()
}

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
