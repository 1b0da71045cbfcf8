package tray

import (
	"testing"
	"time"
)

func TestSessionLabels(t *testing.T) {
	now := time.Now()
	yesterday := now.Add(-24 * time.Hour)
	b := newSessionBook("/home/u")
	b.note("s1", "claude", "/home/u/src/app", now, time.Time{})
	b.note("s2", "", "", time.Time{}, yesterday)
	b.note("s2", "codex", "", time.Time{}, now) // a later sighting keeps the earliest
	b.note("s3", "claude", "/home/u/src/app", now, time.Time{})
	tests := []struct{ id, want string }{
		{"s1", "claude · ~/src/app · " + now.Format("15:04")},
		{"s2", "codex · since " + yesterday.Format("Jan 2 15:04")},
		{"0123456789abcdef", "session 01234567"},
		{"", "–"},
	}
	for _, tc := range tests {
		t.Run(tc.id, func(t *testing.T) {
			if got := b.label(tc.id); got != tc.want {
				t.Errorf("label %q, want %q", got, tc.want)
			}
		})
	}
	labels, byLabel := b.choices([]string{"s1", "s3"})
	if len(labels) != 2 || labels[0] == labels[1] || byLabel[labels[0]] == byLabel[labels[1]] {
		t.Errorf("two sessions with one label are not told apart: %q %v", labels, byLabel)
	}
}
