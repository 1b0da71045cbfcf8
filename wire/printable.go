package wire

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Printable is s as it may be shown to a person: every rune that could
// hide or fake text is written as a visible escape (\n, \x1b, \u202e):
// control characters (a terminal escape, a newline faking another row),
// format characters (bidi overrides, zero-width ones), line and paragraph
// separators, and bytes that are not UTF-8. Agents choose paths, names and
// commands; what the person reads must be what was sent.
func Printable(s string) string {
	if !needsEscape(s) {
		return s
	}
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"):
			b.WriteString(`\x` + strconv.FormatUint(uint64(s[i]), 16))
		case hides(r):
			q := strconv.QuoteRuneToASCII(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func needsEscape(s string) bool {
	return !utf8.ValidString(s) || strings.IndexFunc(s, hides) >= 0
}

func hides(r rune) bool {
	return unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp)
}

// Cut is s cut to at most n bytes on a rune boundary, with "…" when cut.
func Cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
