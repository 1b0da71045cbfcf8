package hooks

import (
	"bytes"
	"encoding/json"
	"strings"
)

// Claude Code: a PreToolUse command hook. Input: session_id,
// transcript_path, cwd, permission_mode, hook_event_name, tool_name,
// tool_input, tool_use_id. Output: hookSpecificOutput with
// permissionDecision and permissionDecisionReason.
//
// An explicit "allow" also skips Claude's own permission prompt, and
// pathgrant judges only file accesses. So pathgrant says "allow" only when
// the user granted the access through pathgrant (a grant was used, or the
// user approved this very call while the hook waited); when pathgrant
// merely has no objection it answers {} and Claude's own rules apply as
// they would without the hook.

type claudeInput struct {
	SessionID string          `json:"session_id"`
	Cwd       string          `json:"cwd"`
	Event     string          `json:"hook_event_name"`
	ToolName  string          `json:"tool_name"`
	ToolInput json.RawMessage `json:"tool_input"`
	ToolUseID string          `json:"tool_use_id"`
}

type claudeAdapter struct{}

func (claudeAdapter) parse(raw []byte) (Call, error) {
	var in claudeInput
	if err := json.Unmarshal(raw, &in); err != nil {
		return Call{}, malformed("%v", err)
	}
	if in.Event != "PreToolUse" {
		return Call{}, malformed("event %q is not PreToolUse", in.Event)
	}
	c := Call{Client: "claude", Event: in.Event, Tool: in.ToolName, ClientSession: in.SessionID,
		Cwd: in.Cwd, RequestID: in.ToolUseID}
	return c, claudeTool(&c, in.ToolName, in.ToolInput)
}

// claudeTool maps the Claude Code tool vocabulary (also used by Codex for
// its Claude-compatible names) to accesses. A tool the client's row lists
// as touching no local file is marked NoFiles before its input is read.
func claudeTool(c *Call, tool string, input json.RawMessage) error {
	if tool == "" {
		return malformed("no tool_name")
	}
	if touchesNoFile(c.Client, tool) && !makesWorktree(tool, input) {
		c.NoFiles = true
		return nil
	}
	if claudeMCP.mark(c, tool) {
		return nil
	}
	f, err := decodeObject(input, "tool_input")
	if err != nil {
		return err
	}
	var a Access
	switch tool {
	case "Bash":
		cmd, err := f.command(tool)
		if err != nil {
			return err
		}
		a = shellCommand(c.Cwd, cmd)
		c.Shell, c.ToolInput = true, input
	case "Read", "NotebookRead":
		p, err := f.needPath(claudePathKeys, tool, claudePathKey(tool))
		if err != nil {
			return err
		}
		a = readAccess(under(c.Cwd, claudeExpand(c.Client, p)))
	case "Write", "Edit", "MultiEdit", "NotebookEdit":
		p, err := f.needPath(claudePathKeys, tool, claudePathKey(tool))
		if err != nil {
			return err
		}
		a = writeAccess(under(c.Cwd, claudeExpand(c.Client, p)))
	case "Glob":
		pattern, err := f.need(tool, "pattern")
		if err != nil {
			return err
		}
		base, err := f.path(claudePathKeys, "path")
		if err != nil {
			return err
		}
		a = searched(treeAccess(globRoot(under(c.Cwd, orDefault(claudeExpand(c.Client, base), c.Cwd)), pattern)),
			searchInput{kind: "glob", pattern: pattern, in: base})
	case "Grep":
		a, err = claudeGrep(c, f)
		if err != nil {
			return err
		}
	case "LS":
		p, err := f.needPath(claudePathKeys, tool, "path")
		if err != nil {
			return err
		}
		a = readAccess(under(c.Cwd, claudeExpand(c.Client, p)))
	default:
		return unknownTool(c.Client, tool)
	}
	c.Accesses = append(c.Accesses, a)
	return nil
}

// claudePathKeys are the keys Claude Code's file tools name a path with;
// a call naming two of them is refused (fields.path).
var claudePathKeys = []string{"file_path", "notebook_path", "path"}

// claudePathKey is the key Claude Code reads a file tool's path from (its
// tool schemas, 2.1.328): the notebook tools' notebook_path, the others'
// file_path.
func claudePathKey(tool string) string {
	if strings.HasPrefix(tool, "Notebook") {
		return "notebook_path"
	}
	return "file_path"
}

// makesWorktree reports whether a Claude Code sub-agent call asks for
// isolation "worktree": Claude then creates a git worktree (files in the
// repository, some of them protected) before the sub-agent runs, so the
// call touches files after all and is not one pathgrant can map.
func makesWorktree(tool string, input json.RawMessage) bool {
	if tool != "Agent" && tool != "Task" {
		return false
	}
	// Keys are read exactly, as Claude reads them: Go's decoder would match
	// "Isolation" too and keep the last of two, so any spelling of the key
	// but the exact one, or the key twice, counts as making a worktree.
	var in map[string]json.RawMessage
	if json.Unmarshal(input, &in) != nil {
		return true // an Agent input that is not an object: nothing shows it makes none
	}
	n := 0
	for k := range in {
		if strings.EqualFold(k, "isolation") {
			n++
		}
	}
	raw, exact := in["isolation"]
	switch {
	case n == 0:
		return false
	case n > 1 || !exact || bytes.Count(input, []byte(`"isolation"`)) > 1:
		return true
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return true
	}
	return v != nil && v != "remote"
}

// claudeGrep is a Grep: a search of its path (the cwd by default), shown
// with its pattern and its file filters.
func claudeGrep(c *Call, f fields) (Access, error) {
	base, err := f.path(claudePathKeys, "path")
	if err != nil {
		return Access{}, err
	}
	v, err := f.each("pattern", "glob", "type")
	if err != nil {
		return Access{}, err
	}
	pattern, glob, typ := v[0], v[1], v[2]
	in := searchInput{kind: "pattern", pattern: pattern, in: base,
		filters: append(filter("files", glob), filter("type", typ)...)}
	return searched(searchAccess(under(c.Cwd, orDefault(claudeExpand(c.Client, base), c.Cwd))), in), nil
}

// jsSpace is JavaScript's white space: what String.prototype.trim removes
// and a regular expression's \s matches.
func jsSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', '\u00a0', '\u1680', '\u2028', '\u2029', '\u202f', '\u205f', '\u3000', '\ufeff':
		return true
	}
	return r >= '\u2000' && r <= '\u200a'
}

// claudeExpand is a Claude Code tool's path as Claude Code 2.1.328 takes
// it before resolving it: its expandPath trims the white space
// JavaScript's trim() removes (Unicode spaces too), then expands "~" and
// "~/" to os.homedir() (expandHome) and runs the rest through path.resolve
// (whose `..` the guard judges both ways). Grep's and Glob's path reach
// the hook as the model wrote them, so without the trim " /home/u/.ssh"
// was checked as a folder inside the workspace and searched as the keys'
// folder, and without the expansion "~/.ssh" was checked as a folder
// named "~" in the working directory (a search root is a quoted shell
// word). The
// file tools' paths reach the hook already expanded (their
// backfillObservableInput), where the trim changes nothing. Codex, which
// shares the vocabulary, opens its paths as written.
func claudeExpand(client, p string) string {
	if client != "claude" {
		return p
	}
	return expandHome(strings.TrimFunc(p, jsSpace))
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

type claudeOutput struct {
	Hook claudeHookOutput `json:"hookSpecificOutput"`
}

type claudeHookOutput struct {
	Event    string          `json:"hookEventName"`
	Decision string          `json:"permissionDecision"`
	Reason   string          `json:"permissionDecisionReason"`
	Updated  json.RawMessage `json:"updatedInput,omitempty"`
}

// render answers Claude Code: {} when pathgrant defers to Claude's own
// permission flow. A confining rewrite (ExecWrap) needs an explicit allow
// to carry updatedInput; Claude's own prompt is then skipped for that
// command, which the kernel now confines.
func (claudeAdapter) render(c Call, v Verdict) Output {
	switch {
	case v.Defer:
		return jsonOutput(struct{}{})
	case v.Allow && v.Rewrite != nil:
		return jsonOutput(claudeOutput{claudeHookOutput{"PreToolUse", "allow", v.Reason + " (runs under pathgrant exec)", v.Rewrite}})
	case v.Allow && !v.Granted:
		return jsonOutput(struct{}{})
	case v.Allow:
		return jsonOutput(claudeOutput{claudeHookOutput{"PreToolUse", "allow", v.Reason, nil}})
	}
	return jsonOutput(claudeOutput{claudeHookOutput{"PreToolUse", "deny", v.Reason, nil}})
}
