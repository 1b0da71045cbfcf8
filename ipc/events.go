package ipc

import (
	"encoding/json"
	"fmt"
	"net/http"
	"pathgrant/wire"
	"slices"
	"sync"
	"time"
)

// hub fans events out to the subscribers of each session. A subscriber that
// does not keep up loses events rather than slowing the daemon down.
type hub struct {
	mu   sync.Mutex
	subs map[string][]chan wire.Event
}

func newHub() *hub { return &hub{subs: map[string][]chan wire.Event{}} }

// subscribe returns a channel of the session's events and a cancel func.
func (h *hub) subscribe(session string) (<-chan wire.Event, func()) {
	ch := make(chan wire.Event, 64)
	h.mu.Lock()
	h.subs[session] = append(h.subs[session], ch)
	h.mu.Unlock()
	return ch, func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.subs[session] = slices.DeleteFunc(h.subs[session], func(c chan wire.Event) bool { return c == ch })
		if len(h.subs[session]) == 0 {
			delete(h.subs, session)
		}
	}
}

// publish sends ev to every subscriber of its session and of "" (all).
func (h *hub) publish(ev wire.Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, key := range []string{ev.Session, ""} {
		for _, ch := range h.subs[key] {
			select {
			case ch <- ev:
			default:
			}
		}
	}
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
