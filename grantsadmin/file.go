package grantsadmin

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"pathgrant/grants"
	"pathgrant/wire"
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

// Denials lists the stored denials, oldest first.
func (f file) Denials() ([]wire.Denial, error) {
	stored, err := f.s.Denials()
	if err != nil {
		return nil, err
	}
	out := make([]wire.Denial, 0, len(stored))
	for _, d := range stored {
		out = append(out, d.Denial)
	}
	slices.SortFunc(out, func(a, b wire.Denial) int {
		return cmp.Or(a.Created.Compare(b.Created), strings.Compare(a.ID, b.ID))
	})
	return out, nil
}

func (f file) LiftDenial(id string) error {
	_, err := f.s.LiftDenial(id)
	return err
}

func (f file) Where() string { return "the store " + f.s.Path() }

func (f file) Close() error { return f.s.Close() }
