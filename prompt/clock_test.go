package prompt

import (
	"testing"
	"time"

	"pathgrant/wire"
)

// TestDurationWords: seconds below 90 s, then whole minutes, then hours.
func TestDurationWords(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{-time.Second, "0 s"},
		{0, "0 s"},
		{48*time.Second + 400*time.Millisecond, "48 s"},
		{89 * time.Second, "89 s"},
		{90 * time.Second, "2 min"},
		{110 * time.Second, "2 min"},
		{297 * time.Second, "5 min"},
		{10 * time.Minute, "10 min"},
		{89 * time.Minute, "89 min"},
		{90 * time.Minute, "1 h 30 min"},
		{2 * time.Hour, "2 h"},
		{24 * time.Hour, "24 h"},
	}
	for _, tt := range tests {
		t.Run(tt.d.String(), func(t *testing.T) {
			if got := DurationWords(tt.d); got != tt.want {
				t.Fatalf("DurationWords(%v) = %q, want %q", tt.d, got, tt.want)
			}
		})
	}
}

// TestWaitingText: the one clock, the agent's, in words.
func TestWaitingText(t *testing.T) {
	now := time.Now()
	tests := []struct {
		name    string
		agent   string
		waiting int
		left    time.Duration
		want    string
	}{
		{"one call, seconds", "claude", 1, 48 * time.Second, "Claude stops waiting in 48 s"},
		{"one call, minutes", "claude code", 1, 297 * time.Second, "Claude code stops waiting in 5 min"},
		{"many calls", "codex", 50, 42 * time.Second, "Codex stops waiting in 42 s (50 calls wait)"},
		{"its clock ran out", "claude", 1, -time.Second, "Claude stopped waiting; approving lets its next try through"},
		{"nobody waits", "claude", 0, time.Minute, "Claude stopped waiting; approving lets its next try through"},
		{"no agent", "", 1, 30 * time.Second, "The agent stops waiting in 30 s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := wire.Request{Agent: tt.agent, Waiting: tt.waiting, WaitUntil: now.Add(tt.left)}
			if got := WaitingText(r, now); got != tt.want {
				t.Fatalf("WaitingText = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestEndedText: why a request ended, as the window says it in place.
func TestEndedText(t *testing.T) {
	tests := []struct{ name, ended, want string }{
		{"the daemon's words", "the command ended: Claude Code's Bash tool stopped it after 2 minutes",
			"The command ended: Claude Code's Bash tool stopped it after 2 minutes. Nothing waits for this any more."},
		{"a full stop of its own", "the command was interrupted.", "The command was interrupted. Nothing waits for this any more."},
		{"no words", "", "This request ended before you decided. Nothing waits for it any more."},
		{"a newline shown as what it is", "gone\nApproved", "Gone\\nApproved. Nothing waits for this any more."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := EndedText(wire.Request{Ended: tt.ended}); got != tt.want {
				t.Fatalf("EndedText = %q, want %q", got, tt.want)
			}
		})
	}
}
