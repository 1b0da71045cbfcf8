package engine

import (
	"testing"
	"time"
)

// TestCapStoreKindsBoundedApart: report tickets filling their bound (a
// day of commands that never failed) neither push out an exec capability
// nor count against the exec capabilities' bound; each kind drops its
// own entry closest to expiry.
func TestCapStoreKindsBoundedApart(t *testing.T) {
	cs := newCapStore()
	now := time.Now()
	execCap := cs.issue(capEntry{kind: CapExec, session: "s", expires: now.Add(CapabilityTTL)}, now)
	var first string
	for i := range maxCapabilities + 10 {
		ticket := cs.issue(capEntry{kind: CapReport, session: "s", expires: now.Add(ReportTTL + time.Duration(i)*time.Second)}, now)
		if i == 0 {
			first = ticket
		}
	}
	if e, ok := cs.consume(execCap, CapExec); !ok || e.kind != CapExec {
		t.Errorf("the exec capability was pushed out by report tickets: %+v %v", e, ok)
	}
	if _, ok := cs.consume(first, CapReport); ok {
		t.Error("the report ticket closest to expiry was kept past the bound")
	}
	if n := len(cs.caps[CapReport]); n != maxCapabilities {
		t.Errorf("%d report tickets kept; want the bound, %d", n, maxCapabilities)
	}
}

// TestHoldTicketStaysOnItsRouteOnly: a hold ticket is presented once per
// held open of its command, so its own route keeps it; presented anywhere
// else it is spent, like every capability.
func TestHoldTicketStaysOnItsRouteOnly(t *testing.T) {
	tests := []struct {
		route    CapKind
		kept     bool
		describe string
	}{
		{CapHold, true, "the hold route"},
		{CapExec, false, "the exec route"},
		{CapReport, false, "the report route"},
		{"", false, "a session route"},
	}
	for _, tt := range tests {
		t.Run(tt.describe, func(t *testing.T) {
			cs := newCapStore()
			now := time.Now()
			ticket := cs.issue(capEntry{kind: CapHold, session: "s", expires: now.Add(ReportTTL)}, now)
			if _, ok := cs.consume(ticket, tt.route); !ok {
				t.Fatal("the ticket was not found")
			}
			if _, ok := cs.consume(ticket, CapHold); ok != tt.kept {
				t.Errorf("after %s the ticket is kept: %v, want %v", tt.describe, ok, tt.kept)
			}
		})
	}
}
