package engine

import (
	"fmt"
	"slices"
	"testing"
)

// TestEndLinesOnePerDestination: a command's end says one refusal line
// per destination (or path), in the order they were first refused, each
// with the latest reason: a tool that retries a destination denied once
// and then for the session is told the session's denial, once. At most
// maxEndLines are said and one line counts the rest; taking a command's
// lines forgets them and no other command's.
func TestEndLinesOnePerDestination(t *testing.T) {
	line := func(dest, why string) string { return "pathgrant: connect to " + dest + " refused: " + why }
	type refusal struct{ dest, why string }
	many := make([]refusal, 0, maxEndLines+2)
	var manyWant []string
	for i := range maxEndLines + 2 {
		d := fmt.Sprintf("10.0.0.%d:443", i+1)
		many = append(many, refusal{d, "denied by the user"})
		if i < maxEndLines {
			manyWant = append(manyWant, line(d, "denied by the user"))
		}
	}
	manyWant = append(manyWant, "pathgrant: and 2 more refused the same way")
	for _, c := range []struct {
		name     string
		refusals []refusal
		want     []string
	}{
		{"none", nil, nil},
		{"the same refusal twice", []refusal{{"10.0.0.1:443", "denied by the user"}, {"10.0.0.1:443", "denied by the user"}},
			[]string{line("10.0.0.1:443", "denied by the user")}},
		{"denied once, then for the session", []refusal{
			{"10.0.0.1:443", "denied by the user"},
			{"example.com:443", "refused by the device policy"},
			{"10.0.0.1:443", "denied by the person for this session"},
		}, []string{line("10.0.0.1:443", "denied by the person for this session"), line("example.com:443", "refused by the device policy")}},
		{"another port is another destination", []refusal{{"10.0.0.1:443", "denied by the user"}, {"10.0.0.1:22", "denied by the user"}},
			[]string{line("10.0.0.1:443", "denied by the user"), line("10.0.0.1:22", "denied by the user")}},
		{"a reason on several lines is one", []refusal{{"10.0.0.1:443", "denied\nby the\tuser"}},
			[]string{line("10.0.0.1:443", "denied by the user")}},
		{"the first maxEndLines destinations", many, manyWant},
		{"a kept destination refused again past the bound", append(slices.Clone(many), refusal{"10.0.0.1:443", "denied for the session"}),
			append([]string{line("10.0.0.1:443", "denied for the session")}, manyWant[1:]...)},
	} {
		t.Run(c.name, func(t *testing.T) {
			n := newEndLines()
			n.add("other", "10.9.9.9:443", connectLine("10.9.9.9:443", "denied by the user"))
			n.add("", "10.9.9.8:443", connectLine("10.9.9.8:443", "denied by the user"))
			for _, r := range c.refusals {
				n.add("check", r.dest, connectLine(r.dest, r.why))
			}
			got, keys := n.take("check")
			if !slices.Equal(got, c.want) {
				t.Errorf("lines %q, want %q", got, c.want)
			}
			if len(keys) < len(got)-1 {
				t.Errorf("keys %q for lines %q", keys, got)
			}
			if got, _ := n.take("check"); got != nil {
				t.Errorf("taken twice: %q", got)
			}
			if got, _ := n.take(""); got != nil {
				t.Errorf("lines kept for no command: %q", got)
			}
			if got, _ := n.take("other"); len(got) != 1 {
				t.Errorf("the other command's lines: %q", got)
			}
		})
	}
}
