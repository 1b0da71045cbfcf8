package wire

import (
	"testing"
	"time"
)

func TestFormatFor(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{{15 * time.Minute, "15m"}, {time.Hour, "1h"}, {8 * time.Hour, "8h"}, {90 * time.Minute, "1h30m"}, {2 * time.Second, "2s"}, {168 * time.Hour, "168h"}} {
		if got := FormatFor(tc.d); got != tc.want {
			t.Errorf("FormatFor(%v) = %q, want %q", tc.d, got, tc.want)
		}
		if back, err := time.ParseDuration(FormatFor(tc.d)); err != nil || back != tc.d {
			t.Errorf("FormatFor(%v) does not parse back: %v %v", tc.d, back, err)
		}
	}
}
