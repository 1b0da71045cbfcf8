package ipc

import (
	"net/http"
)

// handleHealth says the daemon is up, how many requests wait, whether
// prompts are paused, and the confinement agent shell commands get:
// "bwrap+landlock", "landlock", "off" (the device policy) or "none" (the
// machine cannot), so every surface can say "unconfined" when it is.
func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "pending": len(s.queue.pending()), "paused": s.paused.Load(),
		"confinement": s.confinementLevel()})
}
