package engine

import (
	"pathgrant/grants"
)

// Audit appends rec; a failure is logged, never shown to the caller as
// success of anything else.
func (s *Engine) Audit(rec grants.Record) {
	if err := s.cfg.Store.Audit(rec); err != nil {
		s.log.Error("audit append failed", "kind", rec.Kind, "err", err)
	}
}

// AuditRecords returns the audit records f selects: the person's alone.
func (s *Engine) AuditRecords(f grants.AuditFilter) ([]grants.Record, *Error) {
	recs, err := s.cfg.Store.AuditRecords(f)
	if err != nil {
		return nil, errorf(Internal, "", "audit: %v", err)
	}
	return recs, nil
}
