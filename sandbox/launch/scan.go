package launch

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// refusalMessages are the error texts that follow a path a command could
// not reach, matched without regard to case (node says "permission
// denied, open '/x'"); "no such file" covers dash's "No such file" and
// the usual "No such file or directory".
var refusalMessages = []string{"permission denied", "read-only file system", "no such file",
	"operation not permitted", "directory nonexistent"}

// Bounds on what a front end remembers of a command's stderr and reports.
const (
	MaxRefusalLines = 64
	MaxLineBytes    = 4096
	MaxReported     = 8
)

// Scanner is the side of the stderr tee that remembers the lines
// naming a refusal (Lines; Paths are the paths they name). It never holds more than one line being assembled and
// MaxRefusalLines remembered ones.
type Scanner struct {
	mu    sync.Mutex
	line  []byte
	long  bool // the line being read passed MaxLineBytes: ignored
	lines []string
	// offline: a line said the network or a name could not be reached
	// (NoRoute).
	offline bool
}

// Write splits p into lines and keeps the ones naming a refusal.
func (s *Scanner) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for rest := p; len(rest) > 0; {
		i := bytes.IndexByte(rest, '\n')
		chunk := rest
		if i >= 0 {
			chunk = rest[:i]
		}
		if len(s.line)+len(chunk) > MaxLineBytes {
			s.long, s.line = true, s.line[:0]
		} else if !s.long {
			s.line = append(s.line, chunk...)
		}
		if i < 0 {
			break
		}
		s.endLine()
		rest = rest[i+1:]
	}
	return len(p), nil
}

// endLine keeps the line just read if it names a refusal.
func (s *Scanner) endLine() {
	if !s.long && len(s.lines) < MaxRefusalLines && namesRefusal(string(s.line)) {
		s.lines = append(s.lines, string(s.line))
	}
	if !s.long && !s.offline {
		s.offline = saysOffline(string(s.line))
	}
	s.line, s.long = s.line[:0], false
}

// Lines are the remembered lines, an unfinished last one included.
func (s *Scanner) Lines() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.line) > 0 {
		s.endLine()
	}
	return slices.Clone(s.lines)
}

// Offline reports whether a line said the network, or a name, could not
// be reached: in a network namespace of its own, what a tool that ignores
// the proxy variables says.
func (s *Scanner) Offline() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.offline || !s.long && saysOffline(string(s.line))
}

// offlineMessages are what tools say when they find no route or no name
// server: the C library, curl, wget, git, Python, Node, Go.
var offlineMessages = []string{"network is unreachable", "could not resolve host", "temporary failure in name resolution",
	"name or service not known", "unable to resolve host address", "failed to resolve", "getaddrinfo enotfound",
	"getaddrinfo eai_again", "no such host", "couldn't connect to server"}

// saysOffline reports whether line holds one of offlineMessages.
func saysOffline(line string) bool {
	l := strings.ToLower(line)
	return slices.ContainsFunc(offlineMessages, func(m string) bool { return strings.Contains(l, m) })
}

// NoRouteLine is what pathgrant adds to the output of a command in a
// network namespace of its own whose tool found no route or no name
// server: it went around pathgrant's proxy, which the environment names.
const NoRouteLine = "pathgrant: this command has a network of its own and goes out only through pathgrant's proxy " +
	"(HTTPS_PROXY, HTTP_PROXY, ALL_PROXY are set): a tool that ignores them cannot connect; use one that takes a proxy"

// Paths are the distinct absolute paths the remembered lines name, in
// order.
func (s *Scanner) Paths() []string { return RefusedPaths(s.Lines()) }

// RefusedPaths are the distinct absolute paths lines name as refused, in
// order.
func RefusedPaths(lines []string) []string {
	var out []string
	for _, l := range lines {
		for _, p := range refusedPaths(l) {
			if !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	return out
}

func namesRefusal(line string) bool {
	lower := asciiLower(line)
	return slices.ContainsFunc(refusalMessages, func(m string) bool { return strings.Contains(lower, m) })
}

// quotedPath returns the first absolute path in quotes in s, as Python
// (`Permission denied: '/x'`) and node (`permission denied, open '/x'`)
// print it after the message.
func quotedPath(s string) (string, bool) {
	for i, r := range s {
		if !strings.ContainsRune(`'"‘`, r) {
			continue
		}
		rest := s[i+utf8.RuneLen(r):]
		if !strings.HasPrefix(rest, "/") {
			continue
		}
		if end := strings.IndexAny(rest, `'"’`); end >= 0 {
			return rest[:end], true
		}
	}
	return "", false
}

// refusedPaths returns the absolute paths one stderr line says could not
// be reached: the one just before ": <message>" (`cat: /x: Permission
// denied`, `bash: line 1: /x: …`, `sh: 1: cannot open /x: …`, `touch:
// cannot touch '/x': …`) and the quoted one after it (Python, node).
func refusedPaths(line string) []string {
	lower := asciiLower(line)
	var out []string
	for _, m := range refusalMessages {
		i := strings.Index(lower, m)
		if i < 0 {
			continue
		}
		if p := pathBefore(line[:i]); p != "" {
			out = append(out, p)
		}
		if p, ok := quotedPath(line[i+len(m):]); ok {
			out = append(out, filepath.Clean(p))
		}
	}
	return out
}

// pathBefore is the path in the last ": "-separated field of before,
// which must end with ": ".
func pathBefore(before string) string {
	field, ok := strings.CutSuffix(before, ": ")
	if !ok {
		return ""
	}
	if i := strings.LastIndex(field, ": "); i >= 0 {
		field = field[i+2:]
	}
	if !strings.HasPrefix(field, "/") && !startsQuoted(field) {
		// "cannot open /x", "cannot touch '/x'": the path is the first
		// word that starts like one.
		i := -1
		for _, start := range []string{" /", " '/", ` "/`, " ‘/"} {
			if j := strings.Index(field, start); j >= 0 && (i < 0 || j < i) {
				i = j
			}
		}
		if i < 0 {
			return ""
		}
		field = field[i+1:]
	}
	field = unquote(field)
	if !strings.HasPrefix(field, "/") {
		return ""
	}
	return filepath.Clean(field)
}

func startsQuoted(s string) bool {
	return strings.HasPrefix(s, "'/") || strings.HasPrefix(s, `"/`) || strings.HasPrefix(s, "‘/")
}

// unquote strips one pair of quotes (', ", or ‘’) around s.
func unquote(s string) string {
	for _, q := range [][2]string{{"'", "'"}, {`"`, `"`}, {"‘", "’"}} {
		if strings.HasPrefix(s, q[0]) && strings.HasSuffix(s, q[1]) && len(s) >= len(q[0])+len(q[1]) {
			return s[len(q[0]) : len(s)-len(q[1])]
		}
	}
	return s
}

// asciiLower lowers the ASCII letters of s and keeps every other byte, so
// an index into it is one into s (strings.ToLower changes the length of
// invalid UTF-8 and of some letters; the messages are ASCII).
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// Unsaid drops the refusal lines that name a path pathgrant already
// answered while the command ran (and said why: the seccomp supervisor,
// the held-open file system), so the daemon is not asked about it again.
func Unsaid(lines, refused []string) []string {
	if len(refused) == 0 {
		return lines
	}
	return slices.DeleteFunc(lines, func(l string) bool {
		paths := RefusedPaths([]string{l})
		return len(paths) > 0 && slices.ContainsFunc(paths, func(p string) bool { return slices.Contains(refused, p) })
	})
}
