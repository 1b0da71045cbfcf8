package wire

import "testing"

// TestUnconfined: only the three levels that confine count as confined;
// an unknown or empty level never does.
func TestUnconfined(t *testing.T) {
	tests := []struct {
		level Level
		want  bool
	}{
		{LevelFull, false},
		{LevelLandlock, false},
		{LevelSeatbelt, false},
		{LevelOff, true},
		{LevelNone, true},
		{"", true},
		{"sandbox", true},
	}
	for _, tt := range tests {
		t.Run(string(tt.level), func(t *testing.T) {
			if got := tt.level.Unconfined(); got != tt.want {
				t.Errorf("Level(%q).Unconfined() = %v, want %v", tt.level, got, tt.want)
			}
		})
	}
}
