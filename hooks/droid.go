package hooks

import (
	"encoding/json"
	"strings"
)

// Factory Droid: a PreToolUse command hook in ~/.factory/settings.json,
// Claude Code's protocol (input and output), read from the shipped
// binary of 0.225.2 and run against it: a deny blocks and the model
// reads the reason; an allow with updatedInput replaces the call's input
// (the confining rewrite); "ask" and {} leave the call to Droid's own
// autonomy level. Its tools are its own: Execute, Read, Create, Edit,
// ApplyPatch, Grep, Glob, LS, and MCP tools named SERVER___TOOL.
type droidAdapter struct{ claudeAdapter }

func (droidAdapter) parse(raw []byte) (Call, error) {
	c, in, done, err := preToolUse(raw, "droid", droidMCP)
	if done || err != nil {
		return c, err
	}
	if in.ToolName == "ApplyPatch" {
		return c, patchAccesses(&c, in.ToolInput)
	}
	f, err := decodeObject(in.ToolInput, "tool_input")
	if err != nil {
		return Call{}, err
	}
	return c, droidTool(&c, f, in.ToolInput)
}

// preToolUse reads a PreToolUse input in Claude Code's shape for client
// (Droid's, Qwen Code's): done when the call is settled without its tool
// input, a tool known to touch no local file or an MCP tool (named in the
// form mcp).
func preToolUse(raw []byte, client string, mcp mcpName) (c Call, in claudeInput, done bool, err error) {
	if err := json.Unmarshal(raw, &in); err != nil {
		return Call{}, in, true, malformed("%v", err)
	}
	if in.Event != "PreToolUse" {
		return Call{}, in, true, malformed("event %q is not PreToolUse", in.Event)
	}
	if in.ToolName == "" {
		return Call{}, in, true, malformed("no tool_name")
	}
	c = Call{Client: client, Event: in.Event, Tool: in.ToolName, ClientSession: in.SessionID, Cwd: in.Cwd, RequestID: in.ToolUseID}
	if touchesNoFile(client, in.ToolName) {
		c.NoFiles = true
		return c, in, true, nil
	}
	if mcp.mark(&c, in.ToolName) {
		return c, in, true, nil
	}
	return c, in, false, nil
}

// droidPathKeys are the keys Droid's tools name a path with; a call naming
// two of them is refused (fields.path).
var droidPathKeys = []string{"file_path", "directory_path", "folder", "path"}

// droidTool maps Droid's own tools.
func droidTool(c *Call, f fields, input json.RawMessage) error {
	tool := c.Tool
	switch tool {
	case "Execute":
		cmd, err := f.command(tool)
		if err != nil {
			return err
		}
		c.Accesses = append(c.Accesses, shellCommand(c.Cwd, cmd))
		c.Shell, c.ToolInput = true, input
	case "Read":
		p, err := f.needPath(droidPathKeys, tool, "file_path")
		if err != nil {
			return err
		}
		for _, v := range droidReadVariants(under(c.Cwd, p)) {
			c.Accesses = append(c.Accesses, readAccess(v))
		}
	case "Create", "Edit", "MultiEdit":
		p, err := f.needPath(droidPathKeys, tool, "file_path")
		if err != nil {
			return err
		}
		c.Accesses = append(c.Accesses, writeAccess(literalHome(c.Cwd, p))) // path.resolve(cwd, p): no ~
	case "LS":
		p, err := f.path(droidPathKeys, "directory_path", "path")
		if err != nil {
			return err
		}
		c.Accesses = append(c.Accesses, readAccess(under(c.Cwd, orDefault(p, c.Cwd))))
	case "Grep":
		base, err := f.path(droidPathKeys, "path")
		if err != nil {
			return err
		}
		v, err := f.each("pattern", "glob_pattern", "type")
		if err != nil {
			return err
		}
		in := searchInput{kind: "pattern", pattern: v[0], in: base, filters: append(filter("files", v[1]), filter("type", v[2])...)}
		c.Accesses = append(c.Accesses, searched(searchAccess(under(c.Cwd, orDefault(base, c.Cwd))), in))
	case "Glob":
		return droidGlob(c, f)
	case "Task":
		return droidTask(c, f)
	default:
		return unknownTool(c.Client, tool)
	}
	return nil
}

// droidGlob is a Glob: each of its patterns under its folder (the cwd by
// default).
func droidGlob(c *Call, f fields) error {
	patterns, err := f.strs("patterns", "pattern")
	if err != nil {
		return err
	}
	if len(patterns) == 0 {
		return malformed("tool Glob: no patterns")
	}
	folder, err := f.path(droidPathKeys, "folder", "path")
	if err != nil {
		return err
	}
	base := under(c.Cwd, orDefault(folder, c.Cwd))
	for _, p := range patterns {
		for _, root := range droidGlobRoots(base, p) {
			c.Accesses = append(c.Accesses, searched(treeAccess(root), searchInput{kind: "glob", pattern: p, in: folder}))
		}
	}
	return nil
}

// droidGlobRoots are the folders a Droid Glob pattern may list under
// base. Droid 0.225.2 trims each pattern with JavaScript's trim() and
// hands it to `rg --files --glob PATTERN .` run in the folder, where a
// pattern starting with "/" is anchored at the folder, not at the disk's
// root (ripgrep's gitignore rules: `rg --files --glob '/e/*.txt'` run in
// /d lists /d/e/in.txt, never /e/out.txt): " /h/.ssh/*" lists /h/.ssh,
// and "/h/.ssh/*" lists FOLDER/h/.ssh. An absolute pattern is checked
// both ways, as anchored at the folder and as the folder it names.
func droidGlobRoots(base, pattern string) []string {
	return anchoredGlobRoots(base, strings.TrimFunc(pattern, jsSpace))
}

// droidReadVariants are the files Droid 0.225.2's Read may open for p: p,
// or, when p is missing, p with its first " PM" and first " AM" given a
// narrow no-break space (a macOS screenshot's name), a path that may lead
// elsewhere; both are checked.
func droidReadVariants(p string) []string {
	v := strings.Replace(strings.Replace(p, " PM", "\u202fPM", 1), " AM", "\u202fAM", 1)
	if v == p {
		return []string{p}
	}
	return []string{p, v}
}

// droidTask is a sub-agent, whose own tool calls come through this hook;
// the images it is given (image_paths) are read into its conversation.
func droidTask(c *Call, f fields) error {
	images, err := f.strs("image_paths")
	if err != nil {
		return err
	}
	for _, p := range images {
		c.Accesses = append(c.Accesses, readAccess(under(c.Cwd, p)))
	}
	c.NoFiles = len(images) == 0
	return nil
}
