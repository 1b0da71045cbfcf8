package engine

import (
	"context"
	"testing"
	"time"

	"pathgrant/wire"
)

// TestToolClock: a command's clock is its client's tool timeout from the
// check's time, said with the client's and the tool's names and the
// duration in words; it bounds a held open's wait only where it is
// shorter than the hold's own bound; pathgrant's own shell tool's clock
// is its call's deadline.
func TestToolClock(t *testing.T) {
	now := time.Unix(1000, 0)
	tests := []struct {
		name    string
		clock   toolClock
		words   string
		wait    time.Duration // of a 5 minute bound, at now
		byClock bool
		ended   string // ended(false)
	}{
		{"Claude Code's Bash default", clockOf(wire.CheckRequest{Tool: "Bash", ToolTimeoutMS: 120000, Purpose: "List"}, "claude", now),
			"Claude Code's Bash tool stops a command after 2 minutes", 2 * time.Minute, true,
			"the command ended before a decision (Claude Code's Bash tool stops a command after 2 minutes)"},
		{"longer than the hold's bound", clockOf(wire.CheckRequest{Tool: "Bash", ToolTimeoutMS: 600000}, "claude", now),
			"Claude Code's Bash tool stops a command after 10 minutes", 5 * time.Minute, false,
			"the command ended before a decision (Claude Code's Bash tool stops a command after 10 minutes)"},
		{"seconds, an unknown agent", clockOf(wire.CheckRequest{Tool: "shell", ToolTimeoutMS: 90000}, "my-agent", now),
			"my-agent's shell tool stops a command after 90 seconds", 90 * time.Second, true,
			"the command ended before a decision (my-agent's shell tool stops a command after 90 seconds)"},
		{"no clock", clockOf(wire.CheckRequest{Tool: "Bash"}, "claude", now), "", 5 * time.Minute, false,
			"the command ended before a decision"},
		{"pathgrant's own tool call", toolCallClock(deadlineCtx(t, now.Add(2*time.Minute)), now),
			"pathgrant's execute_shell_command stops a command after 2 minutes", 2 * time.Minute, true,
			"the command ended before a decision (pathgrant's execute_shell_command stops a command after 2 minutes)"},
		{"pathgrant's own tool call without a deadline", toolCallClock(context.Background(), now), "", 5 * time.Minute, false,
			"the command ended before a decision"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.clock.words != tt.words {
				t.Errorf("words %q, want %q", tt.clock.words, tt.words)
			}
			wait, byClock := tt.clock.wait(5*time.Minute, now)
			if wait != tt.wait || byClock != tt.byClock {
				t.Errorf("wait %v (by the clock %v), want %v (%v)", wait, byClock, tt.wait, tt.byClock)
			}
			if got := tt.clock.ended(false); got != tt.ended {
				t.Errorf("ended %q, want %q", got, tt.ended)
			}
		})
	}
}

// deadlineCtx is a context that ends at dl.
func deadlineCtx(t *testing.T, dl time.Time) context.Context {
	ctx, cancel := context.WithDeadline(context.Background(), dl)
	t.Cleanup(cancel)
	return ctx
}
