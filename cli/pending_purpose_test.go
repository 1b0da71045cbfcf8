package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"pathgrant/guard"
	"pathgrant/wire"
)

// TestPendingShowsPurpose: `pathgrant pending` shows each request's
// stated purpose (the agent's own words for the call) on its row, on one
// line, printable and cut; "-" where the client sent none.
func TestPendingShowsPurpose(t *testing.T) {
	now := time.Now()
	tests := []struct {
		name, purpose, want string
	}{
		{"the agent's words", "Count the lines of the report", "Count the lines of the report"},
		{"none", "", "-"},
		{"on one line, printable", "Read\nthe \x1b[2Kreport", `Read the \x1b[2Kreport`},
		{"cut", strings.Repeat("x", 100), strings.Repeat("x", maxPurposeShown-1) + "…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			r := wire.Request{ID: "r1", Session: "s1", Op: guard.OpRead, Path: "/home/u/Downloads/report.csv", Count: 1, Created: now, Purpose: tt.purpose}
			if err := writeRequestsTable(&out, []wire.Request{r}, now); err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSpace(out.String()), "\n")
			if len(lines) != 2 || !strings.HasSuffix(lines[0], "PURPOSE") || !strings.HasSuffix(lines[1], "  "+tt.want) {
				t.Errorf("pending printed %q; want its row to end with %q", out.String(), tt.want)
			}
		})
	}
}
