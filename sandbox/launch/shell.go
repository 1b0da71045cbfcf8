package launch

import (
	"path/filepath"
	"strings"
)

// Quote returns s as one shell word: unchanged when it holds only
// characters no shell treats specially, else in single quotes.
func Quote(s string) string {
	if s != "" && strings.Trim(s, safeChars) == "" {
		return s
	}
	return singleQuote(s)
}

const safeChars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-"

// singleQuote wraps s in single quotes. Nothing is special inside them
// but the quote itself, which is written by closing the quoted part, adding
// a backslash-escaped quote and reopening.
func singleQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// CommandText is the shell text the guard should judge for argv: the
// script itself for `bash -c TEXT` or `sh -c TEXT`, else argv quoted and
// joined.
func CommandText(argv []string) string {
	if len(argv) == 3 && argv[1] == "-c" {
		switch filepath.Base(argv[0]) {
		case "bash", "sh":
			return argv[2]
		}
	}
	words := make([]string, len(argv))
	for i, a := range argv {
		words[i] = Quote(a)
	}
	return strings.Join(words, " ")
}
