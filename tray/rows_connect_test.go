package tray

import (
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"pathgrant/grants"
	"pathgrant/guard"
	"pathgrant/wire"
)

// TestSettingsConnectGrant: a connection's grant is listed by its
// destination, as a connection, never as a file's grant; its request
// and audit rows name the connection and its destination the same way.
func TestSettingsConnectGrant(t *testing.T) {
	now := time.Now()
	dest := "registry.npmjs.org:443"
	b := &fakeBackend{
		grants: []grants.Grant{{ID: "g1", Scope: grants.ScopeSession, Op: guard.OpConnect, Path: dest, Kind: guard.KindFile,
			Session: sessA, Agent: "claude", Created: now, UseCount: 2}},
		records: []grants.Record{{Seq: 1, Time: now, Kind: grants.KindApprove, Session: sessA, Op: guard.OpConnect, Path: dest,
			Scope: grants.ScopeSession}},
		pending: []wire.Request{{ID: "r1", Session: sessA, Agent: "claude", Tool: "connect (command paused)",
			Op: guard.OpConnect, Path: "pypi.org:443", Count: 1, Waiting: 1}},
	}
	s := newTestSettings(t, b, nil)
	row := newRow()
	s.updatePending(0, row)
	var pending []string
	for _, o := range test.LaidOutObjects(row) {
		if l, ok := o.(*widget.Label); ok {
			pending = append(pending, strings.SplitN(l.Text, " · ", 2)[0])
		}
	}
	tests := []struct {
		name      string
		got, want []string
	}{
		{"the grant's destination and op", cells(s.grants)[0][:3], []string{dest, "connect", "session"}},
		{"the audit row's op and destination", cells(s.audit)[0][3:5], []string{"connect", dest}},
		{"the pending row's destination and op", pending, []string{"pypi.org:443", "connect"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !slices.Equal(tt.got, tt.want) {
				t.Errorf("got %q, want %q", tt.got, tt.want)
			}
		})
	}
}
