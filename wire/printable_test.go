package wire

import "testing"

func TestPrintable(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"plain", "~/Downloads/report.csv", "~/Downloads/report.csv"},
		{"accents stay", "café/naïve.txt", "café/naïve.txt"},
		{"newline faking a row", "a\nAllow once", `a\nAllow once`},
		{"terminal escape", "x\x1b[2K\ry", `x\x1b[2K\ry`},
		{"bidi override", "report\u202Etxt.exe", `report\u202etxt.exe`},
		{"zero width", "pass\u200Bwords", `pass\u200bwords`},
		{"line separator", "a\u2028b", `a\u2028b`},
		{"not utf-8", "a\xffb", `a\xffb`},
		{"a real replacement character stays", "a\uFFFDb", "a\uFFFDb"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Printable(tc.in); got != tc.want {
				t.Errorf("Printable(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestCut(t *testing.T) {
	if got := Cut("héllo", 2); got != "h…" {
		t.Errorf("Cut on a rune boundary: %q", got)
	}
	if got := Cut("abc", 3); got != "abc" {
		t.Errorf("Cut of a short string: %q", got)
	}
}
