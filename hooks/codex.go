package hooks

import (
	"encoding/json"
	"slices"
	"sort"
	"strings"

	"pathgrant/wire"
)

// Codex CLI: PreToolUse and PermissionRequest command hooks (hooks.json).
// Input as Claude Code's plus turn_id and model; tools are Bash
// ({command}), apply_patch (the patch text in {command}; for a
// PermissionRequest, the changes keyed by path) and MCP tools.
//
// PreToolUse honours only a deny (permissionDecision "deny" with a
// non-empty reason); an "allow" without updatedInput or an "ask" is an
// invalid answer, which Codex treats as a failed hook and runs the tool.
// So an allow is no output at all, and a deny is the deny object.
//
// PermissionRequest is Codex's approval channel: decision.behavior
// "allow" approves the call, "deny" refuses it, no output lets Codex ask
// its user as usual. Codex asks about more than files (network, sandbox
// escalation), so pathgrant approves only what the user granted through
// pathgrant (a grant, or an approval while the hook waited), refuses what
// its guard denies, and otherwise leaves the question to Codex.

// codexInput is Claude Code's PreToolUse input plus Codex's turn id.
type codexInput struct {
	claudeInput
	TurnID string `json:"turn_id"`
}

type codexAdapter struct{}

func (codexAdapter) parse(raw []byte) (Call, error) {
	var in codexInput
	if err := json.Unmarshal(raw, &in); err != nil {
		return Call{}, malformed("%v", err)
	}
	if in.Event != "PreToolUse" && in.Event != "PermissionRequest" {
		return Call{}, malformed("event %q is not PreToolUse or PermissionRequest", in.Event)
	}
	c := Call{Client: "codex", Event: in.Event, Tool: in.ToolName, ClientSession: in.SessionID,
		Cwd: in.Cwd, RequestID: orDefault(in.ToolUseID, in.TurnID)}
	if in.ToolName != "apply_patch" {
		input := in.ToolInput
		if in.Event == "PermissionRequest" && in.ToolName == "Bash" {
			input = unwrapOwnExec(input, FindExecBinary)
			c.Wrapped = string(input) != string(in.ToolInput)
		}
		return c, claudeTool(&c, in.ToolName, input)
	}
	if err := patchAccesses(&c, in.ToolInput); err != nil {
		return Call{}, err
	}
	return c, nil
}

// patchAccesses adds a write (or delete) of each file an apply_patch call
// changes.
func patchAccesses(c *Call, input json.RawMessage) error {
	paths, err := patchPaths(input)
	if err != nil {
		return err
	}
	for _, p := range paths {
		for _, path := range patchTargets(c.Cwd, p.path) {
			a := writeAccess(path)
			if p.delete {
				a.Op = "delete"
			}
			c.Accesses = append(c.Accesses, a)
		}
	}
	return nil
}

// patchTargets are the files a patch's path may name: no client applying
// patches expands a "~" in one (Codex 0.169.0 and Copilot join it to
// their working directory, Cline 3.0.65 runs it through path.resolve), so
// "~/x" is a folder named "~" in the working directory (literalHome),
// where under would leave it for the daemon to expand to the home
// folder, which the client never writes. The home reading is checked as
// well, for a client that does expand it.
func patchTargets(cwd, p string) []string {
	literal := literalHome(cwd, p)
	if home := under(cwd, p); home != literal {
		return []string{literal, home}
	}
	return []string{literal}
}

// unwrapOwnExec returns a Bash tool input whose command is the wrapper
// this hook's PreToolUse made (Codex may ask its PermissionRequest about
// the command as rewritten) with the wrapped command in its place, so the
// command itself is judged, not `pathgrant exec`. Only the exact
// ExecWrap shape naming this build's pathgrant (findBin) is unwrapped;
// anything else is left as it is and judged as it stands.
func unwrapOwnExec(input json.RawMessage, findBin func() (string, error)) json.RawMessage {
	var f map[string]json.RawMessage
	var command string
	if json.Unmarshal(input, &f) != nil || json.Unmarshal(f["command"], &command) != nil ||
		!strings.HasPrefix(command, wire.CapEnv+"=") {
		return input
	}
	bin, err := findBin()
	if err != nil {
		return input
	}
	inner, ok := UnwrapExec(command, bin)
	if !ok {
		return input
	}
	raw, err := json.Marshal(inner)
	if err != nil {
		return input
	}
	f["command"] = raw
	out, err := json.Marshal(f)
	if err != nil {
		return input
	}
	return out
}

type patchPath struct {
	path   string
	delete bool
}

// patchPaths lists the files an apply_patch call changes: from the patch
// text (`*** Add File: P`, `*** Update File: P`, `*** Delete File: P`,
// `*** Move to: P`, the space after the colon optional: OpenCode's parser
// takes `*** Add File:P` too), or from a map of changes keyed by path. An input
// holding the patch under two keys, or a patch and a map of changes, is
// refused (errTwoKeys).
func patchPaths(input json.RawMessage) ([]patchPath, error) {
	var text string
	if err := json.Unmarshal(input, &text); err != nil {
		f, err := decodeObject(input, "tool_input")
		if err != nil {
			return nil, err
		}
		if _, err := f.one("command", "patch", "input", "changes"); err != nil {
			return nil, err
		}
		if text, err = f.str("command", "patch", "input"); err != nil {
			return nil, err
		}
		if text == "" {
			var changes map[string]json.RawMessage
			if raw, ok := f["changes"]; ok {
				_ = json.Unmarshal(raw, &changes)
			} else {
				changes = f
			}
			var out []patchPath
			for p := range changes {
				out = append(out, patchPath{path: p})
			}
			sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
			if len(out) == 0 {
				return nil, malformed("apply_patch: no files in the changes")
			}
			return out, nil
		}
	}
	var out []patchPath
	for line := range strings.Lines(text) {
		line = strings.TrimRight(line, "\r\n")
		for _, prefix := range []string{"*** Add File:", "*** Update File:", "*** Delete File:", "*** Move to:"} {
			if p, ok := strings.CutPrefix(line, prefix); ok {
				for _, v := range patchHeaderPaths(p) {
					out = append(out, patchPath{path: v, delete: prefix == "*** Delete File:"})
				}
			}
		}
	}
	if len(out) == 0 {
		return nil, malformed("apply_patch: no file headers in the patch")
	}
	return out, nil
}

// patchHeaderPaths are the paths a patch header's rest may name, trimmed
// as each client trims it: Rust's trim (Codex, Copilot) and Go's take
// Unicode White_Space, JavaScript's trim() (Cline 3.0.65's patch parser,
// OpenCode's, Droid's) takes the byte-order mark too but not U+0085. A
// header "*** Add File: \ufeff/home/u/.bashrc" is /home/u/.bashrc to a
// JavaScript client and a name in the working directory to the others,
// so both are checked when they differ.
func patchHeaderPaths(rest string) []string {
	var out []string
	for _, v := range []string{strings.TrimSpace(rest), strings.TrimFunc(rest, jsSpace)} {
		if v != "" && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

type codexPreOutput struct {
	Hook claudeHookOutput `json:"hookSpecificOutput"`
}

type codexPermissionOutput struct {
	Hook codexPermission `json:"hookSpecificOutput"`
}

type codexPermission struct {
	Event    string        `json:"hookEventName"`
	Decision codexBehavior `json:"decision"`
}

type codexBehavior struct {
	Behavior string `json:"behavior"`
	Message  string `json:"message,omitempty"`
}

func (codexAdapter) render(c Call, v Verdict) Output {
	if v.Defer { // no output: Codex decides as it would without the hook
		return Output{}
	}
	if c.Event == "PermissionRequest" {
		switch {
		case v.Allow && !v.Granted:
			return Output{}
		case v.Allow:
			return jsonOutput(codexPermissionOutput{codexPermission{"PermissionRequest", codexBehavior{Behavior: "allow"}}})
		}
		return jsonOutput(codexPermissionOutput{codexPermission{"PermissionRequest", codexBehavior{"deny", v.Reason}}})
	}
	switch {
	case v.Allow && v.Rewrite != nil: // Codex takes updatedInput only with an explicit allow
		return jsonOutput(codexPreOutput{claudeHookOutput{"PreToolUse", "allow", v.Reason, v.Rewrite}})
	case v.Allow:
		return Output{}
	}
	return jsonOutput(codexPreOutput{claudeHookOutput{"PreToolUse", "deny", v.Reason, nil}})
}
