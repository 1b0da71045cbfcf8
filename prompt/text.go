package prompt

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"pathgrant/guard"
	"pathgrant/wire"
)

// pathCols is how many monospace characters a path line of the window
// holds: paths are broken into lines of at most this many by the dialog
// itself, at separators, because a toolkit's own wrapping breaks them
// mid-word.
const pathCols = 56

// valueCols is the same for the text beside a row label.
const valueCols = 44

// Tilde shows a path under home with "~" for home, as a person types it,
// and printable (wire.Printable): a path is the agent's to choose, and a
// newline or bidi override in it must show as what it is.
func Tilde(path, home string) string {
	switch {
	case home == "" || home == "/":
	case path == home:
		path = "~"
	case strings.HasPrefix(path, home+"/"):
		path = "~" + path[len(home):]
	}
	return wire.Printable(path)
}

// home is the person's home folder, for Tilde; "" when unknown.
func home() string {
	h, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Clean(h)
}

// WrapPath breaks p into lines of at most cols characters, only after a
// path separator; a single component longer than a line is broken after
// '-', '_' or '.', and only as a last resort inside a run of letters.
// The lines join with "\n": nothing is inserted that a copy would carry
// into a terminal but the line breaks themselves.
func WrapPath(p string, cols int) string {
	if cols < 8 || utf8.RuneCountInString(p) <= cols {
		return p
	}
	var lines []string
	line := ""
	for _, part := range splitAfterAny(p, "/") {
		if utf8.RuneCountInString(line+part) <= cols {
			line += part
			continue
		}
		if utf8.RuneCountInString(part) <= cols { // the component on a line of its own
			lines = append(lines, line)
			line = part
			continue
		}
		lines, line = pack(lines, line, splitAfterAny(part, "-_."), cols, false)
	}
	if line != "" {
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}

// pack adds pieces to the current line, starting a new one (trailing
// spaces dropped when trim) where the next piece would not fit, and
// breaking a piece longer than a line inside itself: the last resort.
func pack(lines []string, line string, pieces []string, cols int, trim bool) ([]string, string) {
	for _, piece := range pieces {
		if utf8.RuneCountInString(line+piece) > cols && line != "" {
			if trim {
				line = strings.TrimRight(line, " ")
			}
			lines = append(lines, line)
			line = ""
		}
		for utf8.RuneCountInString(piece) > cols { // no break opportunity left
			r := []rune(piece)
			lines = append(lines, string(r[:cols]))
			piece = string(r[cols:])
		}
		line += piece
	}
	return lines, line
}

// WrapName breaks a file's name (the window's headline) into lines of
// at most cols characters, after a space, '-', '_' or '.', and only as a
// last resort inside a run of letters: a name cut mid-word by the
// toolkit reads as two other names.
func WrapName(name string, cols int) string {
	if cols < 8 || utf8.RuneCountInString(name) <= cols {
		return name
	}
	lines, line := pack(nil, "", splitAfterAny(name, " -_."), cols, true)
	if line != "" {
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}

// WrapText breaks text (a command, a tool's input) into lines of at most
// cols characters at its spaces; a word longer than a line, a path as a
// rule, is broken as WrapPath breaks it.
func WrapText(text string, cols int) string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(text) {
		switch {
		case line == "" && utf8.RuneCountInString(word) <= cols:
			line = word
		case utf8.RuneCountInString(line)+1+utf8.RuneCountInString(word) <= cols:
			line += " " + word
		default:
			if line != "" {
				lines = append(lines, line)
			}
			parts := strings.Split(WrapPath(word, cols), "\n")
			lines = append(lines, parts[:len(parts)-1]...)
			line = parts[len(parts)-1]
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}

// splitAfterAny cuts s after each of the separator characters in seps.
func splitAfterAny(s, seps string) []string {
	var out []string
	start := 0
	for i, r := range s {
		if strings.ContainsRune(seps, r) {
			out = append(out, s[start:i+utf8.RuneLen(r)])
			start = i + utf8.RuneLen(r)
		}
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

// Recursive reports whether r asks for a whole folder: a folder grant,
// or a search tool's recursive read of its subtree.
func Recursive(r wire.Request) bool {
	return r.Suggested.Kind == guard.KindFolder || wire.IsTreeRead(r.Command)
}

// Target says what r is about, for the line under the heading: the
// folder of a file, or everything under a folder for a recursive one.
func Target(r wire.Request, home string) string {
	if r.Op == wire.OpConnect {
		return "over the network, through pathgrant's proxy"
	}
	if Recursive(r) {
		return "everything under " + Tilde(r.Path, home) + " (recursive)"
	}
	return "in " + Tilde(filepath.Dir(r.Path), home)
}

// Verb is what r's agent wants to do, as the window and notifications
// say it: "read", "connect to".
func Verb(r wire.Request) string {
	if r.Op == wire.OpConnect {
		return "connect to"
	}
	return string(r.Op)
}

// Heading is the prominent name of what r touches: the file's name, or
// the folder's.
func Heading(r wire.Request) string {
	if r.Path == "/" {
		return "/"
	}
	return wire.Printable(filepath.Base(r.Path))
}

// maxAgentName bounds an agent's name in every line that shows it, as
// the daemon bounds it: a name must not push the request out of sight.
const maxAgentName = 64

// AgentName is r's agent as a person calls it: "Claude" for "claude".
func AgentName(agent string) string {
	if agent == "" {
		return "The agent"
	}
	agent = wire.Cut(wire.Printable(agent), maxAgentName)
	r, n := utf8.DecodeRuneInString(agent)
	return string(unicode.ToUpper(r)) + agent[n:]
}

// PausedText says that a confined command is paused in the open of r's
// file, waiting for the person, and which program opened it; "" when no
// command waits that way.
func PausedText(r wire.Request) string {
	if r.Op == wire.OpConnect {
		return "The command is paused, waiting for you: it is connecting to this host. " +
			"Allow, and the connection goes through (nothing runs again); deny, and it is refused."
	}
	if r.Held == "" {
		return ""
	}
	return "The command is paused, waiting for you: " + wire.Printable(r.Held) +
		" opened this file. Allow, and it reads the file and goes on (nothing runs again); deny, and its open fails. " + heldByText(r.HeldBy)
}

// AskedText says how often the agent asked for the same access.
func AskedText(count int) string {
	if count <= 1 {
		return "asked once"
	}
	return fmt.Sprintf("asked %d times", count)
}

// ReasonText is why the guard stopped r, worded for the person being
// asked: the path the window already shows in large becomes "this file"
// ("this folder", "this host"), and the "can be approved" the model reads
// is dropped, since the window itself is the asking. "The file is outside
// the workspace".
func ReasonText(r wire.Request) string {
	reason := wire.Printable(r.Reason)
	if reason == "" {
		return ""
	}
	subject := "This file"
	switch {
	case r.Op == wire.OpConnect:
		subject = "This host"
	case Recursive(r):
		subject = "This folder"
	}
	if rest, ok := strings.CutPrefix(reason, string(r.Op)+" "+r.Path+" "); ok {
		reason = subject + " " + rest
	}
	if r.Path != "" {
		reason = strings.ReplaceAll(reason, r.Path, strings.ToLower(subject))
	}
	if i := strings.LastIndex(reason, ";"); i > 0 && strings.HasSuffix(reason, "can be approved") {
		reason = reason[:i]
	}
	return upperFirst(trimStop(reason))
}

// upperFirst capitalises s's first letter, for a line that starts a
// sentence with the daemon's words.
func upperFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

// trimStop drops a sentence's final full stop, for a line that goes on.
func trimStop(s string) string {
	return strings.TrimSuffix(strings.TrimSpace(s), ".")
}

// SessionText labels r's session as a person knows it: the agent, the
// project folder and when it started.
func SessionText(r wire.Request, home string) string {
	parts := []string{AgentName(r.Agent)}
	if r.Cwd != "" {
		parts = append(parts, "in "+Tilde(r.Cwd, home))
	}
	if !r.SessionStarted.IsZero() {
		parts = append(parts, "started "+r.SessionStarted.Local().Format("15:04"))
	}
	return strings.Join(parts, ", ")
}

// firstLine is the first line of an error's text, for the window's one
// error line.
func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// heldByText says what holds a paused command's open, and for the
// fallback why: the person can tell why every other open of the command
// is slower there.
func heldByText(by string) string {
	if by == wire.HeldByFS {
		return "(Held by pathgrant's file system, which serves this folder to the command.)"
	}
	return "(Held by the seccomp supervisor: pathgrant's file system cannot be mounted here; pathgrant doctor says why.)"
}

// maxPurpose bounds the agent's stated purpose in the window: its words,
// not the request, must not fill it.
const maxPurpose = 160

// PurposeText is the agent's own stated purpose of the call, quoted and
// attributed to it ("Claude says: …"): the agent's words, which pathgrant
// has not checked; "" when it gave none.
func PurposeText(r wire.Request) string {
	p := wire.Printable(strings.Join(strings.Fields(r.Purpose), " "))
	if p == "" {
		return ""
	}
	return AgentName(r.Agent) + " says: \u201c" + wire.Cut(p, maxPurpose) + "\u201d"
}

// ScopeWords names the one scope a request offers, in place of a menu of
// one: "This folder, ~/Downloads".
func ScopeWords(r wire.Request, o ScopeOption, home string) string {
	switch {
	case r.Op == wire.OpConnect:
		return "This destination"
	case o.Kind == guard.KindFolder:
		return o.Label + ", " + Tilde(o.Folder, home)
	}
	return o.Label
}
