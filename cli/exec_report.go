package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"pathgrant/guard"
	"pathgrant/ipc"
	"pathgrant/sandbox"
)

// A confined command that fails on a path outside its view says only
// "No such file or directory" or "Permission denied", and an agent that
// reads that retries blindly. When its stderr is captured (an agent's
// tool, not a terminal), exec runs the sandbox as its child, passes the
// command's stderr through as it comes, remembers the lines that name a
// refused path, and after a failing exit asks the daemon about a read of
// each such path outside the view: one line per path then says whether it
// can be approved (and that the approval was raised) or not.
//
// Identity for that check: exec runs outside the sandbox, as a descendant
// of the agent, so it asks as the session the way the agent's hook does:
// a hook-only session is bound to the agent process, which is in exec's
// lineage; a registered session by its token ($PATHGRANT_TOKEN, which
// `pathgrant run` sets). No new credential exists and none is handed to
// the command: the confined command cannot reach the socket, and what
// exec checks (reads, never waiting, at most maxReported a run) is what
// the agent could already ask through its hook.

// refusalMessages are the error texts that follow a path a command could
// not reach, matched without regard to case (node says "permission
// denied, open '/x'"); "no such file" covers dash's "No such file" and
// the usual "No such file or directory".
var refusalMessages = []string{"permission denied", "read-only file system", "no such file",
	"operation not permitted", "directory nonexistent"}

// Bounds on what exec remembers of a command's stderr and reports.
const (
	maxRefusalLines = 64
	maxLineBytes    = 4096
	maxReported     = 8
	reportTimeout   = 5 * time.Second
)

// refusalScanner is the side of the stderr tee that remembers the lines
// naming a refusal. It never holds more than one line being assembled and
// maxRefusalLines remembered ones.
type refusalScanner struct {
	mu    sync.Mutex
	line  []byte
	long  bool // the line being read passed maxLineBytes: ignored
	lines []string
}

// Write splits p into lines and keeps the ones naming a refusal.
func (s *refusalScanner) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for rest := p; len(rest) > 0; {
		i := bytes.IndexByte(rest, '\n')
		chunk := rest
		if i >= 0 {
			chunk = rest[:i]
		}
		if len(s.line)+len(chunk) > maxLineBytes {
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
func (s *refusalScanner) endLine() {
	if !s.long && len(s.lines) < maxRefusalLines && namesRefusal(string(s.line)) {
		s.lines = append(s.lines, string(s.line))
	}
	s.line, s.long = s.line[:0], false
}

// Paths are the distinct absolute paths the remembered lines (and an
// unfinished last line) name, in order.
func (s *refusalScanner) Paths() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.line) > 0 {
		s.endLine()
	}
	var out []string
	for _, l := range s.lines {
		for _, p := range refusedPaths(l) {
			if !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	return out
}

func namesRefusal(line string) bool {
	lower := strings.ToLower(line)
	return slices.ContainsFunc(refusalMessages, func(m string) bool { return strings.Contains(lower, m) })
}

// quotedPath is an absolute path in quotes after the message, as Python
// (`Permission denied: '/x'`) and node (`permission denied, open '/x'`)
// print it.
var quotedPath = regexp.MustCompile(`['"‘](/[^'"’]*)['"’]`)

// refusedPaths returns the absolute paths one stderr line says could not
// be reached: the one just before ": <message>" (`cat: /x: Permission
// denied`, `bash: line 1: /x: …`, `sh: 1: cannot open /x: …`, `touch:
// cannot touch '/x': …`) and the quoted one after it (Python, node).
func refusedPaths(line string) []string {
	lower := strings.ToLower(line)
	var out []string
	for _, m := range refusalMessages {
		i := strings.Index(lower, m)
		if i < 0 {
			continue
		}
		if p := pathBefore(line[:i]); p != "" {
			out = append(out, p)
		}
		if sub := quotedPath.FindStringSubmatch(line[i+len(m):]); sub != nil {
			out = append(out, filepath.Clean(sub[1]))
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

// outsideView keeps the paths the command may not read: lexically
// outside what in allows, or a link that leads out of it. A path in /tmp
// counts only if it exists outside: the view's /tmp is private, and a
// command's own temporary file that went missing is not a refusal.
func outsideView(in sandbox.Input, paths []string) []string {
	var out []string
	for _, p := range paths {
		outside := !in.Reads(p)
		if _, err := os.Lstat(p); outside && err != nil && guard.Within("/tmp", p) {
			continue
		}
		if !outside {
			if c, err := filepath.EvalSymlinks(p); err == nil && c != p {
				outside = !in.Reads(c)
			}
		}
		if outside && len(out) < maxReported {
			out = append(out, p)
		}
	}
	return out
}

// reportRefusals asks the daemon about a read of each path for the
// session (which raises an approval request where one can be given) and
// writes one line per path to w.
func (r *execRun) reportRefusals(w io.Writer, paths []string) {
	if len(paths) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), reportTimeout)
	defer cancel()
	c := &ipc.Client{Socket: r.socket, Session: r.session, Token: r.token}
	defer c.CloseIdle()
	for _, p := range paths {
		ans, err := c.Check(ctx, ipc.CheckRequest{Op: guard.OpRead, Path: p, Tool: "exec (refused path)"})
		fmt.Fprintln(w, refusalLine(p, ans, err))
	}
}

// refusalLine is what the agent is told about one refused path.
func refusalLine(p string, ans ipc.Answer, err error) string {
	const outside = "pathgrant: %s is outside this session's permissions"
	switch {
	case err != nil:
		return fmt.Sprintf(outside+" (could not ask whether it can be approved: %s)", p, oneLine(err.Error()))
	case ans.Decision == guard.Allow:
		return fmt.Sprintf("pathgrant: %s may be read now (approved since the command started): retry", p)
	case ans.Eligible && ans.Pending != "":
		return fmt.Sprintf(outside+"; reading it can be approved: raised as request %s, retry after approving", p, ans.Pending)
	case ans.Eligible:
		return fmt.Sprintf(outside+"; reading it can be approved, but no request was raised: %s", p, oneLine(ans.Reason))
	}
	return fmt.Sprintf(outside+" and cannot be approved", p)
}
