package guard

import (
	"strings"
	"testing"
)

// TestDuplicateProgramPanics: a program named in two tables would silently
// take whichever handler came last, so building the table panics.
func TestDuplicateProgramPanics(t *testing.T) {
	tests := []struct {
		name  string
		setup func() func()
	}{
		{"no-path and file command", func() func() {
			noPathCommands = append(noPathCommands, "cat")
			return func() { noPathCommands = noPathCommands[:len(noPathCommands)-1] }
		}},
		{"shell and wrapper", func() func() {
			wrappers["bash"] = wrapper{}
			return func() { delete(wrappers, "bash") }
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer tt.setup()()
			defer func() {
				r := recover()
				if r == nil || !strings.Contains(r.(string), "two program tables") {
					t.Fatalf("buildCommands did not panic on a duplicate (recovered %v)", r)
				}
			}()
			buildCommands()
		})
	}
	if got := len(buildCommands()); got != len(commands) {
		t.Fatalf("tables restored to %d programs, want %d", got, len(commands))
	}
}
