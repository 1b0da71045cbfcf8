package hooks

import (
	"encoding/json"
	"slices"
	"strings"
)

// GitHub Copilot CLI: a preToolUse command hook in a hooks file of its own
// ($COPILOT_HOME/hooks/*.json, {"version": 1, "hooks": {"preToolUse":
// [{"type": "command", "bash": ..., "timeoutSec": ...}]}}). Input:
// sessionId, timestamp, cwd, toolName, toolArgs (an object, or the patch
// text itself for apply_patch); the payload names no event, so a session
// end is told by its shape (copilotEnd). Output, read from the shipped
// runtime of 1.0.102 and run against it:
//
//   - {"permissionDecision": "deny", "permissionDecisionReason": R}
//     blocks; the model reads "Denied by preToolUse hook: R";
//   - {"permissionDecision": "allow"} runs the call and skips Copilot's
//     own permission checks, so pathgrant says it only for what the user
//     granted through pathgrant;
//   - {"modifiedArgs": {...}} replaces the arguments, and Copilot's own
//     flow then judges the call as rewritten: the confining rewrite;
//   - {} leaves the call to Copilot's own flow.
//
// A non-zero exit blocks; a timeout, or output that is not JSON, lets the
// call run, so the hook answers well inside the registered timeout.

type copilotInput struct {
	SessionID string          `json:"sessionId"`
	Cwd       string          `json:"cwd"`
	ToolName  string          `json:"toolName"`
	ToolArgs  json.RawMessage `json:"toolArgs"`
	Reason    string          `json:"reason"`
}

type copilotAdapter struct{}

func (copilotAdapter) parse(raw []byte) (Call, error) {
	var in copilotInput
	if err := json.Unmarshal(raw, &in); err != nil {
		return Call{}, malformed("%v", err)
	}
	if in.ToolName == "" {
		return Call{}, malformed("no toolName")
	}
	c := Call{Client: "copilot", Event: "preToolUse", Tool: in.ToolName, ClientSession: in.SessionID, Cwd: in.Cwd}
	if touchesNoFile(c.Client, in.ToolName) {
		c.NoFiles = true
		return c, nil
	}
	if copilotMCP.mark(&c, in.ToolName) {
		return c, nil
	}
	if in.ToolName == "apply_patch" {
		return c, patchAccesses(&c, in.ToolArgs)
	}
	f, err := decodeObject(in.ToolArgs, "toolArgs")
	if err != nil {
		return Call{}, err
	}
	return c, copilotTool(&c, f, in.ToolArgs)
}

// copilotPathKeys are the keys Copilot's tools name a path with; a call
// naming two of them is refused (fields.path, fields.strs).
var copilotPathKeys = []string{"path", "paths"}

// copilotTool maps Copilot's own tools (the set it offers the model
// depends on the model: GPT-5 models get apply_patch for create and edit,
// and rg for grep).
func copilotTool(c *Call, f fields, args json.RawMessage) error {
	tool := c.Tool
	switch tool {
	case "bash":
		cmd, err := f.command(tool)
		if err != nil {
			return err
		}
		c.Accesses = append(c.Accesses, shellCommand(c.Cwd, cmd))
		c.Shell, c.ToolInput = true, args
	case "view":
		p, err := f.needPath(copilotPathKeys, tool, "path")
		if err != nil {
			return err
		}
		for _, v := range copilotPaths(c.Cwd, p) {
			c.Accesses = append(c.Accesses, readAccess(v))
		}
	case "create", "edit":
		p, err := f.needPath(copilotPathKeys, tool, "path")
		if err != nil {
			return err
		}
		for _, v := range copilotPaths(c.Cwd, p) {
			c.Accesses = append(c.Accesses, writeAccess(v))
		}
	case "grep", "rg", "glob":
		return copilotSearch(c, f)
	default:
		return unknownTool(c.Client, tool)
	}
	return nil
}

// copilotSearch is a grep (rg) or glob over each of its paths, the cwd
// when it names none.
func copilotSearch(c *Call, f fields) error {
	paths, err := f.strs("paths", "path")
	if err != nil {
		return err
	}
	v, err := f.each("pattern", "glob")
	if err != nil {
		return err
	}
	if v[0] == "" {
		return malformed("tool %s: missing \"pattern\"", c.Tool)
	}
	if len(paths) == 0 {
		paths = []string{""}
	}
	for _, p := range paths {
		for _, base := range copilotPaths(c.Cwd, orDefault(p, c.Cwd)) {
			if c.Tool == "glob" {
				for _, root := range anchoredGlobRoots(base, v[0]) {
					c.Accesses = append(c.Accesses, searched(treeAccess(root), searchInput{kind: "glob", pattern: v[0], in: p}))
				}
				continue
			}
			in := searchInput{kind: "pattern", pattern: v[0], in: p, filters: filter("files", v[1])}
			c.Accesses = append(c.Accesses, searched(searchAccess(base), in))
		}
	}
	return nil
}

// copilotPaths are the paths Copilot CLI 1.0.102 may open for a tool's
// path p. Its file and search tools run in its native runtime
// (runtime.node, Rust), which ships path helpers that strip surrounding
// quotes, trim and expand "~" (path_strip_surrounding_quotes,
// path_expand_home) and whose use by each tool its shipped code does not
// show. A path reaches the hook as the model wrote it, and "\"/h/.ssh\""
// written as is would be checked as a name in the working directory: so
// p is checked as written and as those helpers would make it, trimmed,
// unquoted and with "~" expanded to the home folder.
func copilotPaths(cwd, p string) []string {
	trimmed := strings.TrimSpace(p)
	unquoted := trimmed
	if len(unquoted) >= 2 && (unquoted[0] == '"' || unquoted[0] == '\'') && unquoted[len(unquoted)-1] == unquoted[0] {
		unquoted = strings.TrimSpace(unquoted[1 : len(unquoted)-1])
	}
	var out []string
	for _, v := range []string{p, trimmed, unquoted, expandHome(trimmed), expandHome(unquoted)} {
		if v = under(cwd, v); v != "" && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

type copilotOutput struct {
	Decision string          `json:"permissionDecision,omitempty"`
	Reason   string          `json:"permissionDecisionReason,omitempty"`
	Modified json.RawMessage `json:"modifiedArgs,omitempty"`
}

// render answers Copilot. A confining rewrite carries no decision, so
// Copilot's own permission flow still judges the command as rewritten;
// an allow pathgrant merely has no objection to is {} for the same
// reason.
func (copilotAdapter) render(_ Call, v Verdict) Output {
	switch {
	case v.Defer:
		return jsonOutput(struct{}{})
	case v.Allow && v.Rewrite != nil:
		return jsonOutput(copilotOutput{Modified: v.Rewrite})
	case v.Allow && !v.Granted:
		return jsonOutput(struct{}{})
	case v.Allow:
		return jsonOutput(copilotOutput{Decision: "allow", Reason: v.Reason})
	}
	return jsonOutput(copilotOutput{Decision: "deny", Reason: v.Reason})
}
