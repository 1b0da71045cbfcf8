package applink

import (
	"fmt"
	"time"

	"pathgrant/grants"
	"pathgrant/wire"
)

// service is what the app calls, one per app process: the person's own
// actions, with no approval code (only the app the daemon started holds
// this channel), on the daemon in this process. net/rpc serves its
// exported methods.
type service struct {
	link *Link
	run  *running
}

// everyGrant selects live and ended grants alike: the window filters.
var everyGrant = grants.Filter{IncludeRevoked: true, IncludeExpired: true}

// Ready says the app shows its windows: from now on the requests it was
// sent are the person's to see, and the daemon stops logging codes.
func (s *service) Ready(_ Empty, _ *Empty) error {
	s.link.ready(s.run)
	return nil
}

// Quit says the person quit the app: its exit is not a crash, and it is
// not started again until asked (`pathgrant app`).
func (s *service) Quit(_ Empty, _ *Empty) error {
	s.link.quitting(s.run)
	return nil
}

// State is the daemon's state now.
func (s *service) State(_ Empty, st *State) error {
	*st = s.link.state()
	return nil
}

// Pause pauses prompts for a.Pause, or resumes them.
func (s *service) Pause(a PauseArgs, st *State) error {
	if err := checkPause(a.Pause); err != nil {
		return err
	}
	*st = s.link.pause(a.Pause)
	return nil
}

// Decide is the person's decision from the app's window.
func (s *service) Decide(a DecideArgs, r *wire.Request) error {
	got, err := s.link.engine().Decide(a.ID, a.Decision)
	*r = got
	return err
}

// Pending lists every pending request.
func (s *service) Pending(_ Empty, rs *[]wire.Request) error {
	*rs = nonNil(s.link.engine().Pending())
	return nil
}

// Grants lists every grant, live or ended.
func (s *service) Grants(_ Empty, gs *[]grants.Grant) error {
	got, err := s.link.store().List(everyGrant)
	*gs = nonNil(got)
	return err
}

// Audit lists the audit records a.Filter selects.
func (s *service) Audit(a AuditArgs, rs *[]grants.Record) error {
	got, err := s.link.store().AuditRecords(a.Filter)
	*rs = nonNil(got)
	return err
}

// Revoke revokes the grant whose id starts with id.
func (s *service) Revoke(id string, _ *Empty) error { return s.link.engine().Revoke(id) }

// RevokeSession revokes every live grant of a session; n is how many.
func (s *service) RevokeSession(session string, n *int) error {
	ids, err := s.link.engine().RevokeSession(session)
	*n = len(ids)
	return err
}

// Denials lists the remembered denials of every session.
func (s *service) Denials(_ Empty, ds *[]wire.Denial) error {
	*ds = nonNil(s.link.engine().Denials())
	return nil
}

// LiftDenial forgets one remembered denial. The engine's *Error is an
// error only when there is one.
func (s *service) LiftDenial(id string, _ *Empty) error {
	if err := s.link.engine().LiftDenial(id); err != nil {
		return err
	}
	return nil
}

// AskFromAudit raises the person's request for the access audit record
// id refused: only the person's app holds this link, so an agent can
// never raise one.
func (s *service) AskFromAudit(id string, r *wire.Request) error {
	got, err := s.link.engine().AskFromAudit(id)
	if err != nil {
		return err
	}
	*r = got
	return nil
}

// AskForPath raises the person's request for a.Op on a.Path, for this
// device.
func (s *service) AskForPath(a AskArgs, r *wire.Request) error {
	got, err := s.link.engine().AskForPath(a.Op, a.Path)
	if err != nil {
		return err
	}
	*r = got
	return nil
}

// Sessions lists the daemon's sessions, for labels.
func (s *service) Sessions(_ Empty, ss *[]wire.SessionInfo) error {
	*ss = nonNil(s.link.engine().Sessions())
	return nil
}

// maxPause bounds a pause the app asks for: the tray offers one hour.
const maxPause = 24 * time.Hour

// checkPause refuses a pause no tray item offers.
func checkPause(d time.Duration) error {
	if d < 0 || d > maxPause {
		return fmt.Errorf("pause of %s: want 0 (resume) up to %s", d, maxPause)
	}
	return nil
}

// nonNil is s, or an empty list for none: JSON-RPC's client takes a null
// result for a malformed reply and shuts the whole link down.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
