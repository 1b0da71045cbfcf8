package ipc

import (
	"net/http"
)

func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "pending": len(s.queue.pending()), "paused": s.paused.Load()})
}
