package hooks

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"pathgrant/wire"
)

// A search tool (Grep, Glob and their kin) is checked as a recursive read
// of the folder it searches (wire.TreeRead), a command the agent never
// wrote. What the person needs to judge the request is the search itself:
// what it looks for and where. searchInput keeps the tool's own input for
// that, and the check carries it as CheckRequest.Input, which the prompt
// shows instead of the invented command.
type searchInput struct {
	// kind is how the pattern matches: "pattern" searches file contents,
	// "glob" file names.
	kind    string
	pattern string
	// in is the folder or file as the tool named it, "" when the tool
	// searches its working directory.
	in string
	// filters are the further words that narrow the search, already
	// worded: `files "*.go"`, `type go`.
	filters []string
}

// words is the input as the person reads it: `pattern "TODO" in
// ~/Downloads, files "*.csv"`, with ~ for home, cut to wire.MaxInput
// bytes on a rune boundary. The zero searchInput has no words.
func (s searchInput) words(home string) string {
	if s.kind == "" {
		return ""
	}
	out := s.kind + " " + quoteWords(s.pattern)
	if s.in != "" {
		out += " in " + tildeHome(s.in, home)
	}
	if len(s.filters) > 0 {
		out += ", " + strings.Join(s.filters, ", ")
	}
	return cutBytes(out, wire.MaxInput)
}

// quoteWords puts s in double quotes as it is, so a regular expression
// reads as the agent wrote it (`"\d+"`, not `"\\d+"`); only text that holds
// a double quote or a control character is quoted with escapes.
func quoteWords(s string) string {
	if strings.ContainsFunc(s, func(r rune) bool { return r == '"' || r < ' ' || r == 0x7f }) {
		return strconv.Quote(s)
	}
	return `"` + s + `"`
}

// tildeHome writes a path under home with ~ for home.
func tildeHome(p, home string) string {
	if home == "" || home == "/" || !strings.HasPrefix(home, "/") {
		return p
	}
	home = strings.TrimRight(home, "/")
	if p == home {
		return "~"
	}
	if rest, ok := strings.CutPrefix(p, home+"/"); ok {
		return "~/" + rest
	}
	return p
}

// cutBytes cuts s to at most n bytes, on a rune boundary.
func cutBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// filter words one optional narrowing of a search: label and the quoted
// value, or nothing when the tool did not give it.
func filter(label, value string) []string {
	if value == "" {
		return nil
	}
	return []string{label + " " + quoteWords(value)}
}

// searched is the check of a search tool: access (the recursive read of
// what it searches, or the read of one file) with the tool's own input.
func searched(a Access, in searchInput) Access {
	a.Input = in
	return a
}
