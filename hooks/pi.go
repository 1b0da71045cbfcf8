package hooks

import (
	"encoding/json"
	"slices"
	"strings"

	"golang.org/x/text/unicode/norm"
)

// Pi (@mariozechner/pi-coding-agent) has no hook processes: extensions are
// TypeScript modules whose `tool_call` handlers may return {block: true,
// reason}. The extension pathgrant ships (clientconfig/pi/pathgrant.ts) sends each tool
// call to `pathgrant-hook pi` as
//
//	{"hook_event_name": "tool_call", "session_id", "cwd", "tool_name",
//	 "tool_call_id", "input"}
//
// and blocks unless the answer is exactly {"block": false} with exit
// status 0; any other answer, exit status, timeout or spawn error blocks.
// An allowed bash call's answer may carry "command": the command to run
// instead (confined under `pathgrant exec`), which the extension writes
// into the call's input (Pi's tool_call input is mutable).
// Tools: bash {command}, read {path}, write {path}, edit {path},
// grep {pattern, path}, find {pattern, path}, ls {path}.

type piInput struct {
	SessionID  string          `json:"session_id"`
	Cwd        string          `json:"cwd"`
	Event      string          `json:"hook_event_name"`
	ToolName   string          `json:"tool_name"`
	ToolCallID string          `json:"tool_call_id"`
	Input      json.RawMessage `json:"input"`
}

type piAdapter struct{}

// piPathKeys are the keys a Pi tool input may name a path with: Pi runs
// its tools on path (0.73.1) and shows file_path first when both are set,
// so a call naming both is refused (fields.path), and file_path alone
// names no path Pi uses.
var piPathKeys = []string{"path", "file_path"}

func (piAdapter) parse(raw []byte) (Call, error) {
	var in piInput
	if err := json.Unmarshal(raw, &in); err != nil {
		return Call{}, malformed("%v", err)
	}
	if in.Event != "tool_call" {
		return Call{}, malformed("event %q is not tool_call", in.Event)
	}
	if in.ToolName == "" {
		return Call{}, malformed("no tool_name")
	}
	c := Call{Client: "pi", Event: in.Event, Tool: in.ToolName, ClientSession: in.SessionID, Cwd: in.Cwd,
		RequestID: in.ToolCallID}
	if touchesNoFile(c.Client, in.ToolName) {
		c.NoFiles = true
		return c, nil
	}
	f, err := decodeObject(in.Input, "input")
	if err != nil {
		return Call{}, err
	}
	switch in.ToolName {
	case "bash":
		cmd, err := f.command(in.ToolName)
		if err != nil {
			return Call{}, err
		}
		c.Accesses = append(c.Accesses, shellCommand(c.Cwd, cmd))
		c.Shell, c.ToolInput = true, in.Input
	case "read":
		p, err := f.needPath(piPathKeys, in.ToolName, "path")
		if err != nil {
			return Call{}, err
		}
		for _, v := range piReadVariants(under(c.Cwd, piExpand(p))) {
			c.Accesses = append(c.Accesses, readAccess(v))
		}
	case "write", "edit":
		p, err := f.needPath(piPathKeys, in.ToolName, "path")
		if err != nil {
			return Call{}, err
		}
		c.Accesses = append(c.Accesses, writeAccess(under(c.Cwd, piExpand(p))))
	case "ls":
		p, err := f.path(piPathKeys, "path")
		if err != nil {
			return Call{}, err
		}
		c.Accesses = append(c.Accesses, readAccess(under(c.Cwd, orDefault(piExpand(p), c.Cwd))))
	case "grep":
		base, err := f.path(piPathKeys, "path")
		if err != nil {
			return Call{}, err
		}
		v, err := f.each("pattern", "glob")
		if err != nil {
			return Call{}, err
		}
		c.Accesses = append(c.Accesses, searched(searchAccess(under(c.Cwd, orDefault(expandHome(piExpand(base)), c.Cwd))),
			searchInput{kind: "pattern", pattern: v[0], in: base, filters: filter("files", v[1])}))
	case "find":
		base, err := f.path(piPathKeys, "path")
		if err != nil {
			return Call{}, err
		}
		pattern, err := f.str("pattern")
		if err != nil {
			return Call{}, err
		}
		c.Accesses = append(c.Accesses, searched(treeAccess(piFindRoot(under(c.Cwd, orDefault(expandHome(piExpand(base)), c.Cwd)), pattern)),
			searchInput{kind: "glob", pattern: pattern, in: base}))
	default:
		return c, unknownTool(c.Client, in.ToolName)
	}
	return c, nil
}

// piSpaces are the Unicode spaces Pi reads as a plain space in a path.
var piSpaces = strings.NewReplacer("\u00a0", " ", "\u2000", " ", "\u2001", " ", "\u2002", " ", "\u2003", " ", "\u2004", " ",
	"\u2005", " ", "\u2006", " ", "\u2007", " ", "\u2008", " ", "\u2009", " ", "\u200a", " ", "\u202f", " ", "\u205f", " ", "\u3000", " ")

// piExpand is a tool's path as Pi 0.73.1 takes it before resolving it
// (expandPath in its path-utils): one leading "@" dropped (the model's
// file mention) and Unicode spaces made plain. Without it
// "@/home/u/.ssh/id_rsa" would be checked as a file inside the workspace
// and read as the key. The `~` Pi expands is expanded by the daemon (a
// search root's by the hook, expandHome: a root reaches the daemon as a
// quoted shell word), and the `..` Pi cleans lexically the guard judges
// both ways.
func piExpand(p string) string {
	return piSpaces.Replace(strings.TrimPrefix(p, "@"))
}

// piFindRoot is the folder Pi 0.73.1's find lists for pattern under
// base: it runs `fd --glob --full-path **/PATTERN BASE` for a relative
// pattern holding a "/", so "src/*.ts" matches a src folder at any depth
// of base, not only base/src (globRoot's root); fd never leaves base,
// and an absolute pattern matches full paths, inside globRoot's root.
func piFindRoot(base, pattern string) string {
	if strings.Contains(pattern, "/") && !strings.HasPrefix(pattern, "/") {
		return base
	}
	return globRoot(base, pattern)
}

// piAMPM is s with the space of each " AM." or " PM." (any case) of a
// macOS screenshot's name made a narrow no-break space, as Pi also tries
// it (JavaScript's replace(/ (AM|PM)\./gi, "\u202f$1.")).
func piAMPM(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == ' ' && i+3 < len(s) && s[i+3] == '.' && strings.EqualFold(s[i+2:i+3], "m") &&
			(s[i+1] == 'a' || s[i+1] == 'A' || s[i+1] == 'p' || s[i+1] == 'P') {
			b.WriteString("\u202f")
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// piReadVariants are the files Pi 0.73.1's read may open for the path p
// (resolveReadPath in its path-utils): p itself or, when p is missing,
// the first of its variants that exists: " AM."/" PM." with a narrow
// no-break space, the whole path in NFD, with straight apostrophes made
// curly (U+2019), and NFD with curly apostrophes. A variant changes every
// component, folders too, so "/w/café/id_rsa" (missing) is read as
// "/w/cafe\u0301/id_rsa", which a link in the workspace may lead out of:
// each variant is checked, since which exists when Pi looks is Pi's.
func piReadVariants(p string) []string {
	nfd := norm.NFD.String(p)
	curly := func(s string) string { return strings.ReplaceAll(s, "'", "\u2019") }
	out := []string{p}
	for _, v := range []string{piAMPM(p), nfd, curly(p), curly(nfd)} {
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// piOutput is the extension's answer; Command, on an allow, is the bash
// command to run instead (confined), which the extension writes into the
// tool call's input.
type piOutput struct {
	Block   bool   `json:"block"`
	Reason  string `json:"reason,omitempty"`
	Command string `json:"command,omitempty"`
}

// render answers the extension. Pi has no permission flow of its own to
// leave a call to: a call pathgrant would defer is blocked, saying so.
func (piAdapter) render(_ Call, v Verdict) Output {
	if v.Defer {
		return jsonOutput(piOutput{Block: true, Reason: "pathgrant: Pi has no permission flow of its own to leave this call to, so it is blocked (" +
			strings.TrimPrefix(v.Reason, "pathgrant: ") + ")"})
	}
	if v.Allow {
		var in struct {
			Command string `json:"command"`
		}
		if v.Rewrite != nil && json.Unmarshal(v.Rewrite, &in) == nil {
			return jsonOutput(piOutput{Block: false, Command: in.Command})
		}
		return jsonOutput(piOutput{Block: false})
	}
	return jsonOutput(piOutput{Block: true, Reason: v.Reason})
}
