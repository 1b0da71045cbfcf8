package ipc

import (
	"net/http"
	"testing"

	"pathgrant/engine"
)

// TestReportTicketOnlyFromItsFrontEnd: a report says the command ended,
// and has the daemon run the check it owes after it; presented by any
// process but the front end the ticket was issued to (early, before the
// command planted anything) it is refused, and the ticket is spent.
func TestReportTicketOnlyFromItsFrontEnd(t *testing.T) {
	ce := newCapEnv(t)
	cap := ce.hookCheck(t, "ls").Exec.Capability
	p, st := ce.prepare(t, cap, "ls", "")
	if st != http.StatusOK || p.Ticket == "" {
		t.Fatalf("prepare: %d %+v", st, p)
	}
	frontEnd := *ce.role.Load()
	ce.as([]engine.LineageEntry{{Proc: engine.Proc{PID: 4002, Start: 1}, Comm: "python3"}, {Proc: engine.Proc{PID: 4000, Start: 1}, Comm: "claude"}})
	if _, st := ce.report(t, p.Ticket, "ls"); st != http.StatusForbidden {
		t.Fatalf("another process's report: %d, want 403", st)
	}
	ce.as(frontEnd)
	if _, st := ce.report(t, p.Ticket, "ls"); st != http.StatusForbidden {
		t.Fatalf("the spent ticket from its front end: %d, want 403", st)
	}
}
