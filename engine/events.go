package engine

import (
	"pathgrant/wire"
	"slices"
	"sync"
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

// Subscribe streams session's events until cancel is called.
func (s *Engine) Subscribe(session string) (events <-chan wire.Event, cancel func()) {
	return s.hub.subscribe(session)
}
