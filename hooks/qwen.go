package hooks

import (
	"encoding/json"
	"path"
	"strings"
)

// Qwen Code: a PreToolUse command hook in settings.json, Claude Code's
// shape (timeout in seconds). Input as Claude Code's, plus timestamp,
// prompt_id and tool_call_id; tools as Gemini CLI's, from which Qwen Code
// is forked. Read from the shipped bundle of 0.24.4 and run against it:
//
//   - a deny (hookSpecificOutput.permissionDecision, or the older
//     top-level decision) blocks, and the model reads the reason alone;
//   - the hooks of every settings file run, and their hookSpecificOutput
//     fields are copied over one another, the last hook's winning, while
//     any top-level deny wins: pathgrant's deny says both, and pathgrant
//     never says allow, which could override another hook's deny (an
//     allow does not skip Qwen's own approval, which comes first anyway);
//   - PreToolUse cannot rewrite the call's input (updatedInput and
//     tool_input are ignored), so shell commands are judged by the guard
//     alone, not confined;
//   - a timeout, a crash (exit 1) or output that is not JSON let the call
//     run: the hook answers well inside its timeout, and blocks with exit
//     status 2, which Qwen Code honours.
type qwenAdapter struct{}

func (qwenAdapter) parse(raw []byte) (Call, error) {
	c, in, done, err := preToolUse(raw, "qwen", claudeMCP)
	if done || err != nil {
		return c, err
	}
	f, err := decodeObject(in.ToolInput, "tool_input")
	if err != nil {
		return Call{}, err
	}
	return c, qwenTool(&c, f, in.ToolInput)
}

// qwenPathKeys are the keys Qwen Code's tools name a path with (in their
// legacy names too); a call naming two of them is refused (fields.path).
var qwenPathKeys = []string{"file_path", "notebook_path", "absolute_path", "path", "dir_path", "directory"}

// qwenTool maps Qwen Code's own tools (their legacy names too).
func qwenTool(c *Call, f fields, input json.RawMessage) error {
	tool := c.Tool
	switch tool {
	case "run_shell_command":
		cmd, err := f.command(tool)
		if err != nil {
			return err
		}
		dir, err := f.path(qwenPathKeys, "directory", "dir_path")
		if err != nil {
			return err
		}
		c.Accesses = append(c.Accesses, shellCommand(under(c.Cwd, orDefault(dir, c.Cwd)), cmd))
		c.Shell, c.ToolInput = true, input // Qwen Code cannot take it rewritten: the verdict says so
	case "read_file":
		p, err := f.needPath(qwenPathKeys, tool, "file_path", "absolute_path", "path")
		if err != nil {
			return err
		}
		c.Accesses = append(c.Accesses, readAccess(under(c.Cwd, p)))
	case "write_file", "edit", "replace":
		p, err := f.needPath(qwenPathKeys, tool, "file_path", "absolute_path")
		if err != nil {
			return err
		}
		c.Accesses = append(c.Accesses, writeAccess(under(c.Cwd, p)))
	case "notebook_edit": // reads notebook_path alone (its own permission check reads file_path first)
		p, err := f.needPath(qwenPathKeys, tool, "notebook_path")
		if err != nil {
			return err
		}
		c.Accesses = append(c.Accesses, writeAccess(under(c.Cwd, p)))
	case "list_directory":
		p, err := f.path(qwenPathKeys, "path", "dir_path")
		if err != nil {
			return err
		}
		c.Accesses = append(c.Accesses, readAccess(under(c.Cwd, orDefault(p, c.Cwd))))
	case "glob":
		pattern, err := f.need(tool, "pattern")
		if err != nil {
			return err
		}
		base, err := f.path(qwenPathKeys, "path", "dir_path")
		if err != nil {
			return err
		}
		for _, root := range globRootsAnyCase(under(c.Cwd, orDefault(qwenExpandTilde(base), c.Cwd)), pattern) {
			c.Accesses = append(c.Accesses, searched(treeAccess(root), searchInput{kind: "glob", pattern: pattern, in: base}))
		}
	case "grep_search", "search_file_content":
		base, err := f.path(qwenPathKeys, "path")
		if err != nil {
			return err
		}
		v, err := f.each("pattern", "glob")
		if err != nil {
			return err
		}
		in := searchInput{kind: "pattern", pattern: v[0], in: base, filters: filter("files", v[1])}
		c.Accesses = append(c.Accesses, searched(searchAccess(under(c.Cwd, orDefault(qwenExpandTilde(base), c.Cwd))), in))
	default:
		return unknownTool(c.Client, tool)
	}
	return nil
}

// qwenExpandTilde is a search root as Qwen Code 0.24.4 takes it
// (resolvePath's expandTilde in its paths utilities, for grep and glob):
// "~" and "~/..." name the home folder, and so does "~\\..." on every
// system, its backslashes read as separators and the whole joined the
// way Node's path.join does, `..` applied ("~\\.ssh" is ~/.ssh). The
// root reaches the hook trimmed and unescaped (Qwen does that to its path
// keys before the hook runs), and reaches the daemon as a quoted shell word,
// where a "~" is a plain name: without the expansion "~/.ssh" was checked
// as a folder in the workspace and searched as the keys' folder.
func qwenExpandTilde(p string) string {
	rest, ok := strings.CutPrefix(p, "~\\")
	if !ok {
		return expandHome(p)
	}
	home := expandHome("~")
	if home == "~" {
		return "/" // no home to expand to: the whole disk, rather than a name in the cwd
	}
	parts := strings.FieldsFunc(rest, func(r rune) bool { return r == '/' || r == '\\' })
	return path.Join(append([]string{home}, parts...)...) // Node's path.join: cleaned
}

type qwenOutput struct {
	Decision string            `json:"decision"`
	Reason   string            `json:"reason"`
	Hook     *claudeHookOutput `json:"hookSpecificOutput"`
}

// render answers Qwen Code: a deny in both its forms, and no decision for
// everything else (see above).
func (qwenAdapter) render(_ Call, v Verdict) Output {
	if v.Allow || v.Defer {
		return jsonOutput(struct{}{})
	}
	return jsonOutput(qwenOutput{Decision: "deny", Reason: v.Reason, Hook: &claudeHookOutput{"PreToolUse", "deny", v.Reason, nil}})
}
