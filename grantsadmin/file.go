package grantsadmin

import (
	"time"

	"pathgrant/grants"
)

// file is an Admin on a store file this process holds.
type file struct{ s *grants.Store }

// File returns an Admin on an open store; its Close closes the store.
func File(s *grants.Store) Admin { return file{s} }

func (f file) List(flt grants.Filter) ([]grants.Grant, error) { return f.s.List(flt) }

// State names g's state now, including a device grant this device does
// not honour.
func (f file) State(g grants.Grant) string {
	if f.s.Foreign(g) {
		return "foreign-device"
	}
	return g.State(time.Now())
}

func (f file) Revoke(id string) error { return f.s.Revoke(id) }

func (f file) RevokeSession(session string) (int, error) { return f.s.RevokeSession(session) }

func (f file) Audit(flt grants.AuditFilter) ([]grants.Record, error) { return f.s.AuditRecords(flt) }

func (f file) EachAudit(flt grants.AuditFilter, fn func(grants.Record) error) error {
	return f.s.EachAudit(flt, fn)
}

func (f file) Where() string { return "the store " + f.s.Path() }

func (f file) Close() error { return f.s.Close() }
