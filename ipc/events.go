package ipc

import (
	"encoding/json"
	"fmt"
	"net/http"
	"pathgrant/wire"
	"time"
)

// handleEvents streams one session's events as server-sent events until
// the client goes away or the daemon shuts down.
func (s *Server) handleEvents(w http.ResponseWriter, r *http.Request, c sessionCall) {
	rc := http.NewResponseController(w)
	events, cancel := s.e.Subscribe(c.SessionID())
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

func writeEvent(w http.ResponseWriter, rc *http.ResponseController, ev wire.Event) error {
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
