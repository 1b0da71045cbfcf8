package main

import (
	"strings"
	"testing"
)

// TestQuitSaysWhatStops: the quit window says that only the window
// stops, that pathgrant keeps checking, what waits and how to reach it,
// and how to bring the window back or stop pathgrant itself.
func TestQuitSaysWhatStops(t *testing.T) {
	tests := []struct {
		pending int
		waiting string
	}{
		{0, "Nothing waits for you now."},
		{1, "1 request waits for you: it keeps waiting."},
		{3, "3 requests wait for you: they keep waiting."},
	}
	for _, tc := range tests {
		t.Run(tc.waiting, func(t *testing.T) {
			text := quitText(tc.pending)
			for _, want := range []string{tc.waiting, "tray icon and the approval window only", "keeps running",
				"every agent call is still checked", "'pathgrant pending'", "'pathgrant app' opens the window again",
				"systemctl --user stop pathgrant.socket pathgrant.service"} {
				if !strings.Contains(text, want) {
					t.Errorf("quit text for %d pending lacks %q:\n%s", tc.pending, want, text)
				}
			}
		})
	}
}
