package engine

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

// TestWakeOnDone: a context that ends while the watch is open wakes it
// once, whether it ended before or after the hook was set; once closed,
// nothing wakes, and release runs exactly once.
func TestWakeOnDone(t *testing.T) {
	tests := []struct {
		name      string
		endBefore bool // the context ends before the hook is set
		endOpen   bool // the context ends while the hook is open
		wakes     int32
	}{
		{"ended before", true, false, 1},
		{"ends while open", false, true, 1},
		{"ends after close", false, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tt.endBefore {
				cancel()
			}
			var wakes, releases atomic.Int32
			woke := make(chan struct{}, 1)
			w := wakeOnDone(ctx, func() { wakes.Add(1); woke <- struct{}{} })
			if tt.endOpen {
				cancel()
			}
			if tt.wakes > 0 {
				select {
				case <-woke:
				case <-time.After(2 * time.Second):
					t.Fatal("no wake after the context ended")
				}
			}
			w.close(func() { releases.Add(1) })
			cancel()
			time.Sleep(20 * time.Millisecond)
			if wakes.Load() != tt.wakes || releases.Load() != 1 {
				t.Fatalf("wakes %d, releases %d; want %d, 1", wakes.Load(), releases.Load(), tt.wakes)
			}
		})
	}
}
