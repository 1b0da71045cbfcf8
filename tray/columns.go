package tray

import (
	"strings"
	"unicode/utf8"
)

// ellipsis marks where a cut text was cut.
const ellipsis = "…"

// cutFront returns text whole when it fits, else its end after an
// ellipsis, as much of it as fits: "…/Downloads/report.csv". The cut
// falls after a "/" when one leaves the file name whole, so a path
// never reads as a name it does not have ("…ownloads/report.csv").
func cutFront(text string, fits func(string) bool) string {
	if fits(text) {
		return text
	}
	// the shortest cut that fits: fits is monotonic in what it keeps
	lo, hi := 0, len(text)
	for lo < hi {
		mid := (lo + hi) / 2
		for mid < len(text) && !utf8.RuneStart(text[mid]) {
			mid++
		}
		if mid >= hi {
			break
		}
		if fits(ellipsis + text[mid:]) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	for hi < len(text) && !utf8.RuneStart(text[hi]) {
		hi++
	}
	rest := text[hi:]
	if i := strings.Index(rest, "/"); i > 0 {
		rest = rest[i:]
	}
	return ellipsis + rest
}
