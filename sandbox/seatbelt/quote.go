package seatbelt

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// ErrUnsafe is wrapped by the errors of paths a profile cannot name
// safely: the profile is refused rather than written with a rule that
// means something else.
var ErrUnsafe = errors.New("cannot be written safely in a Seatbelt profile")

// check refuses a path no rule can hold: not absolute and clean (Seatbelt
// matches the path the kernel resolved, never a relative or dotted one),
// a NUL (it would end the profile), a newline (it would end a comment and
// start a rule), bytes that are not UTF-8 (macOS file names are).
func check(path string) error {
	switch {
	case !filepath.IsAbs(path) || filepath.Clean(path) != path:
		return fmt.Errorf("%q is not an absolute, clean path: %w", path, ErrUnsafe)
	case strings.ContainsAny(path, "\x00\n"):
		return fmt.Errorf("%q holds a NUL or a newline: %w", path, ErrUnsafe)
	case !utf8.ValidString(path):
		return fmt.Errorf("%q is not UTF-8: %w", path, ErrUnsafe)
	}
	return nil
}

// quote is path as an SBPL string: in double quotes, with `"` and `\`
// escaped, as the profile reader takes them.
func quote(path string) (string, error) {
	if err := check(path); err != nil {
		return "", err
	}
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	return `"` + r.Replace(path) + `"`, nil
}

// regexMeta are the characters special in a POSIX extended regular
// expression (Seatbelt's) and in Go's: each is written escaped.
const regexMeta = `.[()*+?{|^$`

// Folded is the body of a regular expression that matches path in every
// letter case of its ASCII letters (".git" as \.[gG][iI][tT]) and in no
// other way but one: a character that cannot be written inside #"…"
// (a double quote, a backslash, a control character) is written as any
// character, which only widens the denies Folded is used for.
func Folded(path string) (string, error) {
	if err := check(path); err != nil {
		return "", err
	}
	var b strings.Builder
	for _, r := range path {
		switch {
		case 'a' <= r && r <= 'z':
			b.WriteString("[" + string(r) + string(r-'a'+'A') + "]")
		case 'A' <= r && r <= 'Z':
			b.WriteString("[" + string(r-'A'+'a') + string(r) + "]")
		case r == '"' || r == '\\' || r < 0x20 || r == 0x7f:
			b.WriteByte('.')
		case strings.ContainsRune(regexMeta, r):
			b.WriteString(`\` + string(r))
		default:
			b.WriteRune(r)
		}
	}
	return b.String(), nil
}

// comment is text fit for a ;; comment: one line, nothing but printable
// characters.
func comment(text string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return '?'
		}
		return r
	}, text)
}
