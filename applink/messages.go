package applink

import (
	"time"

	"pathgrant/grants"
	"pathgrant/wire"
)

// EventKind is what an Event asks of the app.
type EventKind string

// The events, in the order the daemon sends them.
const (
	// EventShow adds a pending request to the inbox, with its codes.
	EventShow EventKind = "show"
	// EventUpdate changes a shown request's waiting calls or count.
	EventUpdate EventKind = "update"
	// EventWithdraw removes a request that was decided or expired.
	EventWithdraw EventKind = "withdraw"
	// EventRaise shows a view: wire.ViewInbox or wire.ViewSettings.
	EventRaise EventKind = "raise"
	// EventState is the daemon's state for the tray: confinement, pause.
	EventState EventKind = "state"
	// EventQuit asks the app to exit: the daemon is stopping.
	EventQuit EventKind = "quit"
)

// Event is one message the daemon sends the app. Events arrive in the
// order the daemon made them, on one stream, so a request is never
// withdrawn before it was shown.
type Event struct {
	Kind    EventKind         `json:"kind"`
	Request wire.Request      `json:"request,omitzero"`
	Codes   []wire.ChoiceCode `json:"codes,omitempty"`
	ID      string            `json:"id,omitempty"`
	View    string            `json:"view,omitempty"`
	State   State             `json:"state,omitzero"`
}

// State is what the tray shows of the daemon.
type State struct {
	// Confinement is the level agents' commands run at (wire.Level).
	Confinement string `json:"confinement"`
	// PausedUntil is when paused prompts resume; zero: not paused. The
	// daemon keeps it and ends the pause itself, so an app that crashed
	// while paused never leaves prompts paused for good.
	PausedUntil time.Time `json:"paused_until,omitzero"`
}

// Empty is the argument or reply of a call that carries nothing.
type Empty struct{}

// DecideArgs is the person's decision on request ID.
type DecideArgs struct {
	ID       string        `json:"id"`
	Decision wire.Decision `json:"decision"`
}

// AuditArgs selects audit records.
type AuditArgs struct {
	Filter grants.AuditFilter `json:"filter"`
}

// PauseArgs pauses prompts for a while (Pause > 0) or resumes them.
type PauseArgs struct {
	Pause time.Duration `json:"pause"`
}

// AskArgs is the access the person asks to be offered (App.AskForPath).
type AskArgs struct {
	Op   wire.Op `json:"op"`
	Path string  `json:"path"`
}
