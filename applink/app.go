package applink

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/rpc"
	"net/rpc/jsonrpc"
	"time"

	"pathgrant/grants"
	"pathgrant/wire"
)

// callTimeout bounds one call of the app's: the daemon answers from
// memory or its store at once, or is gone.
const callTimeout = 10 * time.Second

// App is the app's end of the link.
type App struct {
	events io.ReadCloser
	calls  *rpc.Client
}

// Handler is what the app does with the daemon's events, called in the
// order they came, one at a time.
type Handler interface {
	Show(r wire.Request, codes []wire.ChoiceCode)
	Update(r wire.Request)
	Withdraw(id string)
	Raise(view string)
	State(State)
}

// Inherited makes the link with the daemon that started this process:
// it makes the process undumpable first, then sends the daemon its ends
// of the link over the bootstrap socket it inherited (boot.go). A process
// the daemon did not start has none: it is told to ask the daemon.
func Inherited() (*App, error) {
	if err := forbidTracing(); err != nil {
		return nil, err
	}
	events, calls, err := sendHello()
	if err != nil {
		return nil, err
	}
	return &App{events: events, calls: jsonrpc.NewClient(calls)}, nil
}

// errNotStarted is a process that holds no link: only the daemon starts
// the app.
var errNotStarted = errors.New("the pathgrant app is started by the daemon: run 'pathgrant app'")

// Run reads the daemon's events into h until the daemon asks the app to
// quit (nil) or is gone (an error).
func (a *App) Run(h Handler) error {
	dec := json.NewDecoder(a.events)
	for {
		var ev Event
		if err := dec.Decode(&ev); err != nil {
			return fmt.Errorf("the daemon's events: %w", err)
		}
		switch ev.Kind {
		case EventShow:
			h.Show(ev.Request, ev.Codes)
		case EventUpdate:
			h.Update(ev.Request)
		case EventWithdraw:
			h.Withdraw(ev.ID)
		case EventRaise:
			h.Raise(ev.View)
		case EventState:
			h.State(ev.State)
		case EventQuit:
			return nil
		}
	}
}

// Close closes both channels.
func (a *App) Close() error {
	return errors.Join(a.events.Close(), a.calls.Close())
}

// call makes one call within callTimeout.
func (a *App) call(method string, args, reply any) error {
	c := a.calls.Go("Daemon."+method, args, reply, make(chan *rpc.Call, 1))
	select {
	case <-c.Done:
		return c.Error
	case <-time.After(callTimeout):
		return fmt.Errorf("the daemon did not answer %s in %s", method, callTimeout)
	}
}

// Ready says the app shows its windows.
func (a *App) Ready() error { return a.call("Ready", Empty{}, &Empty{}) }

// Quit says the person quits the app: the daemon will not start it again
// until asked.
func (a *App) Quit() error { return a.call("Quit", Empty{}, &Empty{}) }

// State is the daemon's state now.
func (a *App) State() (State, error) {
	var st State
	err := a.call("State", Empty{}, &st)
	return st, err
}

// Pause pauses prompts for d, or resumes them (0).
func (a *App) Pause(d time.Duration) (State, error) {
	var st State
	err := a.call("Pause", PauseArgs{Pause: d}, &st)
	return st, err
}

// Decide is the person's decision on request id: no code, since only the
// app the daemon started holds this link.
func (a *App) Decide(id string, d wire.Decision) error {
	var r wire.Request
	return a.call("Decide", DecideArgs{ID: id, Decision: d}, &r)
}

// Pending lists every pending request.
func (a *App) Pending() ([]wire.Request, error) {
	var rs []wire.Request
	err := a.call("Pending", Empty{}, &rs)
	return rs, err
}

// Grants lists every grant, live or ended.
func (a *App) Grants() ([]grants.Grant, error) {
	var gs []grants.Grant
	err := a.call("Grants", Empty{}, &gs)
	return gs, err
}

// Audit lists the audit records f selects.
func (a *App) Audit(f grants.AuditFilter) ([]grants.Record, error) {
	var rs []grants.Record
	err := a.call("Audit", AuditArgs{Filter: f}, &rs)
	return rs, err
}

// Revoke revokes one grant.
func (a *App) Revoke(id string) error { return a.call("Revoke", id, &Empty{}) }

// RevokeSession revokes every live grant of a session.
func (a *App) RevokeSession(session string) (int, error) {
	var n int
	err := a.call("RevokeSession", session, &n)
	return n, err
}

// Denials lists the remembered denials of every session.
func (a *App) Denials() ([]wire.Denial, error) {
	var ds []wire.Denial
	err := a.call("Denials", Empty{}, &ds)
	return ds, err
}

// LiftDenial forgets one remembered denial.
func (a *App) LiftDenial(id string) error { return a.call("LiftDenial", id, &Empty{}) }

// Sessions lists the daemon's sessions.
func (a *App) Sessions() ([]wire.SessionInfo, error) {
	var ss []wire.SessionInfo
	err := a.call("Sessions", Empty{}, &ss)
	return ss, err
}

// AskFromAudit is the audit's "Allow…" on record recordID (its number,
// grants.Record.Seq): the daemon raises an approval request in the inbox
// for the access the record refused, for its session while that is live,
// else for this device, and returns it. The person then decides it in the
// inbox like any other. A never-allowed path, a write, or an access the
// person denied on this device is refused with the reason.
func (a *App) AskFromAudit(recordID string) (wire.Request, error) {
	var r wire.Request
	err := a.call("AskFromAudit", recordID, &r)
	return r, err
}

// AskForPath is settings' new grant: the daemon raises an approval
// request in the inbox for op on path (a file, or a folder offered as
// that folder), for this device, and returns it; refused as AskFromAudit
// is.
func (a *App) AskForPath(op wire.Op, path string) (wire.Request, error) {
	var r wire.Request
	err := a.call("AskForPath", AskArgs{Op: op, Path: path}, &r)
	return r, err
}
