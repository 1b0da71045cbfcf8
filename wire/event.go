package wire

import "time"

// Event is one server-sent event on GET /v1/events.
type Event struct {
	Type    string    `json:"type"`
	Time    time.Time `json:"time"`
	Session string    `json:"session"`
	Answer  *Answer   `json:"answer,omitempty"`
	Request *Request  `json:"request,omitempty"`
	GrantID string    `json:"grant,omitempty"`
}

// The event types. When a session ends its stream gets one grant.ended
// per session or once grant that ended with it, then session.ended.
const (
	EventRequestCreated = "request.created"
	EventRequestDecided = "request.decided"
	// EventRequestUpdated: a pending request's waiting calls changed.
	EventRequestUpdated = "request.updated"
	EventGrantUsed      = "grant.used"
	EventGrantRevoked   = "grant.revoked"
	EventGrantEnded     = "grant.ended"
	EventSessionEnded   = "session.ended"
)
