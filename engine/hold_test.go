package engine

import (
	"strings"
	"testing"
	"time"
)

// TestHeldCount: a session holds at most maxHeldPerSession opens at once
// and asks at most maxHeldPerMinute times a minute, over all its
// commands; another session is counted apart, and a new minute starts
// afresh.
func TestHeldCount(t *testing.T) {
	now := time.Unix(1000, 0)
	tests := []struct {
		name string
		run  func(h *heldCount) string // the refusal of the last take
		want string                    // in it; "" none
	}{
		{"under both bounds", func(h *heldCount) string { return h.take("s", now) }, ""},
		{"past the opens held at once", func(h *heldCount) string {
			for range maxHeldPerSession {
				h.take("s", now)
			}
			return h.take("s", now)
		}, "already wait"},
		{"another session apart", func(h *heldCount) string {
			for range maxHeldPerSession {
				h.take("s", now)
			}
			return h.take("t", now)
		}, ""},
		{"past the asks of a minute", func(h *heldCount) string {
			for range maxHeldPerMinute {
				h.take("s", now)
				h.done("s")
			}
			return h.take("s", now.Add(59*time.Second))
		}, "within a minute"},
		{"a new minute", func(h *heldCount) string {
			for range maxHeldPerMinute {
				h.take("s", now)
				h.done("s")
			}
			return h.take("s", now.Add(time.Minute))
		}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.run(newHeldCount())
			if tt.want == "" && got != "" || tt.want != "" && !strings.Contains(got, tt.want) {
				t.Errorf("take: %q, want %q", got, tt.want)
			}
		})
	}
}
