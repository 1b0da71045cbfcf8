package hooks

import (
	"strings"
	"testing"
	"unicode/utf8"

	"pathgrant/wire"
)

// TestSearchInputWords: a search tool's input reads as the person would
// say it, with ~ for the home folder, and never exceeds wire.MaxInput.
func TestSearchInputWords(t *testing.T) {
	long := strings.Repeat("é", wire.MaxInput) // two bytes a rune: the cut falls inside one
	tests := []struct {
		name string
		in   searchInput
		want string
	}{
		{"none", searchInput{}, ""},
		{"pattern in a folder under home", searchInput{kind: "pattern", pattern: "TODO", in: "/h/Downloads"}, `pattern "TODO" in ~/Downloads`},
		{"home itself", searchInput{kind: "pattern", pattern: "x", in: "/h"}, `pattern "x" in ~`},
		{"a folder beside home keeps its path", searchInput{kind: "pattern", pattern: "x", in: "/hx/d"}, `pattern "x" in /hx/d`},
		{"relative folder as given", searchInput{kind: "glob", pattern: "*.go", in: "src"}, `glob "*.go" in src`},
		{"glob in the cwd", searchInput{kind: "glob", pattern: "**/*.csv"}, `glob "**/*.csv"`},
		{"filters", searchInput{kind: "pattern", pattern: "TODO", in: "/d", filters: []string{`files "*.go"`, `type "go"`}},
			`pattern "TODO" in /d, files "*.go", type "go"`},
		{"a regular expression reads as written", searchInput{kind: "pattern", pattern: `func\s+\w+`}, `pattern "func\s+\w+"`},
		{"a quote is escaped", searchInput{kind: "pattern", pattern: `say "hi"`}, `pattern "say \"hi\""`},
		{"a control character is escaped", searchInput{kind: "pattern", pattern: "a\nb\x1b[2J"}, `pattern "a\nb\x1b[2J"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.in.words("/h"); got != tt.want {
				t.Errorf("words = %q, want %q", got, tt.want)
			}
		})
	}
	t.Run("cut to MaxInput on a rune boundary", func(t *testing.T) {
		got := searchInput{kind: "pattern", pattern: long}.words("/h")
		if len(got) > wire.MaxInput || len(got) < wire.MaxInput-1 || !utf8.ValidString(got) || !strings.HasPrefix(got, `pattern "éé`) {
			t.Errorf("words of a long pattern: %d bytes, valid %v: %.40q…", len(got), utf8.ValidString(got), got)
		}
	})
	t.Run("no home", func(t *testing.T) {
		if got := (searchInput{kind: "pattern", pattern: "x", in: "/h/d"}).words(""); got != `pattern "x" in /h/d` {
			t.Errorf("words = %q", got)
		}
	})
}
