package engine

import (
	"math"
	"testing"
	"time"

	"pathgrant/wire"
)

// TestAttack43ToolClockBounds: the tool timeout a check sends is the
// agent's to choose. A value whose milliseconds overflow a Duration, or
// one longer than any hold waits, is no clock: it neither wraps into a
// past or negative time (a held open refused at once, "after -1
// milliseconds" shown to the person) nor says more than the wait keeps.
func TestAttack43ToolClockBounds(t *testing.T) {
	now := time.Unix(1000, 0)
	tests := []struct {
		name      string
		ms        int
		wantClock bool
	}{
		{"the largest int", math.MaxInt, false},
		{"wraps negative in nanoseconds", math.MaxInt64/int(time.Millisecond) + 1, false},
		{"a year", int(366 * 24 * time.Hour / time.Millisecond), false},
		{"negative", -1, false},
		{"a day, the longest taken", int(24 * time.Hour / time.Millisecond), true},
		{"two minutes", 120000, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := clockOf(wire.CheckRequest{Tool: "Bash", ToolTimeoutMS: tc.ms}, "claude", now)
			if got := !c.until.IsZero(); got != tc.wantClock {
				t.Fatalf("clock %v (until %v, words %q), want clock %v", got, c.until, c.words, tc.wantClock)
			}
			if tc.wantClock && !c.until.After(now) {
				t.Fatalf("until %v is not after the check's time %v", c.until, now)
			}
			wait, byClock := c.wait(5*time.Minute, now)
			if wait <= 0 || wait > 5*time.Minute {
				t.Fatalf("wait %v (by clock %v): want within (0, 5m]", wait, byClock)
			}
		})
	}
}
