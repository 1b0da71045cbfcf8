package hooks

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// OpenCode (opencode-ai) has no hook processes: plugins are modules loaded
// into OpenCode's own process, and a plugin's "tool.execute.before"
// handler runs before every tool call (built-in, custom and MCP tools
// alike) with the call's arguments, which it may change, and stops the
// call by throwing, the error being the tool result the model reads. The
// plugin pathgrant ships (clientconfig/opencode/pathgrant.js) sends each
// call to `pathgrant-hook opencode` as
//
//	{"hook_event_name": "tool.execute.before", "session_id",
//	 "opencode_session_id", "cwd", "worktree", "tool_name", "call_id",
//	 "args", "mcp_servers"}
//
// and answers like Pi's extension: {"block": false} with exit status 0
// lets the call run, an allowed bash call's answer may carry "command"
// (the command to run confined instead, written into the arguments), and
// anything else stops the call. session_id is one per OpenCode process,
// made by the plugin, so one OpenCode process is one pathgrant session
// whatever conversations it holds; cwd is the directory OpenCode runs its
// tools in. mcp_servers names the MCP servers OpenCode has configured
// (null when it did not say).
//
// Tools, read from opencode-ai 1.18.33's shipped code: bash {command,
// timeout (ms), workdir}, read {filePath} (a file or a folder), write
// {filePath, content}, edit {filePath, oldString, newString, replaceAll},
// apply_patch {patchText} (for GPT models instead of edit and write), glob
// {pattern, path}, grep {pattern, path, include}, lsp {filePath, …} (with
// OPENCODE_EXPERIMENTAL_LSP_TOOL). An MCP tool is named
// SERVER_TOOL, each part with every character outside [A-Za-z0-9_-]
// replaced by "_".

type opencodeInput struct {
	Event      string                     `json:"hook_event_name"`
	SessionID  string                     `json:"session_id"`
	Cwd        string                     `json:"cwd"`
	Worktree   string                     `json:"worktree"`
	ToolName   string                     `json:"tool_name"`
	CallID     string                     `json:"call_id"`
	Args       json.RawMessage            `json:"args"`
	MCPServers map[string]json.RawMessage `json:"mcp_servers"`
}

type opencodeAdapter struct{}

// opencodePathKeys is the one key OpenCode's file tools read a path from.
var opencodePathKeys = []string{"filePath"}

// opencodeBuiltins are OpenCode's built-in tools, its MCP resource tools
// (which read any server's resources) among them; any other name is an
// MCP tool or a custom tool (a plugin's, or a file of a tools folder).
var opencodeBuiltins = []string{
	"bash", "read", "write", "edit", "apply_patch", "glob", "grep", "lsp",
	"webfetch", "websearch", "todowrite", "question", "task", "invalid", "skill", "plan_exit", "execute",
	"list_mcp_resources", "list_mcp_resource_templates", "read_mcp_resource",
}

func (opencodeAdapter) parse(raw []byte) (Call, error) {
	var in opencodeInput
	if err := json.Unmarshal(raw, &in); err != nil {
		return Call{}, malformed("%v", err)
	}
	if in.Event != "tool.execute.before" {
		return Call{}, malformed("event %q is not tool.execute.before", in.Event)
	}
	if in.ToolName == "" {
		return Call{}, malformed("no tool_name")
	}
	c := Call{Client: "opencode", Event: in.Event, Tool: in.ToolName, ClientSession: in.SessionID, Cwd: in.Cwd,
		RequestID: in.CallID}
	if !slices.Contains(opencodeBuiltins, in.ToolName) {
		return opencodeOther(c, in.MCPServers)
	}
	if len(opencodeFits(in.ToolName, in.MCPServers)) > 0 {
		// OpenCode puts the MCP tools in a call's tool set after its own,
		// so a server's tool of this name replaces the built-in, and a
		// resource tool merely starts with a server's name: which one
		// runs cannot be told from the call.
		return Call{}, unknownTool(c.Client, c.Tool)
	}
	if touchesNoFile(c.Client, in.ToolName) {
		c.NoFiles = true
		return c, nil
	}
	f, err := decodeObject(in.Args, "args")
	if err != nil {
		return Call{}, err
	}
	if in.ToolName == "task" {
		return c, opencodeTask(&c, f, in.Worktree)
	}
	return c, opencodeAccesses(&c, f, in.Args)
}

// opencodeAccesses adds what one of OpenCode's file tools touches.
func opencodeAccesses(c *Call, f fields, raw json.RawMessage) error {
	switch c.Tool {
	case "bash":
		cmd, err := f.command(c.Tool)
		if err != nil {
			return err
		}
		workdir, err := f.str("workdir")
		if err != nil {
			return err
		}
		c.Accesses = append(c.Accesses, shellCommand(opencodeResolve(c.Cwd, workdir), cmd))
		c.Shell, c.ToolInput = true, raw
	case "read", "lsp":
		p, err := f.needPath(opencodePathKeys, c.Tool, "filePath")
		if err != nil {
			return err
		}
		path := opencodeDir(c.Cwd, p)
		c.Accesses = append(c.Accesses, readAccess(path))
		if c.Tool == "read" {
			for _, inst := range opencodeInstructionFiles(c.Cwd, path) {
				c.Accesses = append(c.Accesses, readAccess(inst))
			}
		}
	case "write", "edit":
		p, err := f.needPath(opencodePathKeys, c.Tool, "filePath")
		if err != nil {
			return err
		}
		c.Accesses = append(c.Accesses, writeAccess(opencodeDir(c.Cwd, p)))
	case "apply_patch":
		text, err := f.need(c.Tool, "patchText")
		if err != nil {
			return err
		}
		quoted, _ := json.Marshal(text) // a string always marshals
		paths, err := patchPaths(quoted)
		if err != nil {
			return err
		}
		for _, p := range paths {
			a := writeAccess(opencodeResolve(c.Cwd, p.path))
			if p.delete {
				a.Op = "delete"
			}
			c.Accesses = append(c.Accesses, a)
		}
	case "glob":
		base, err := f.str("path")
		if err != nil {
			return err
		}
		pattern, err := f.need(c.Tool, "pattern")
		if err != nil {
			return err
		}
		// ripgrep (rg --files --glob) anchors a pattern starting with "/"
		// at the folder searched.
		for _, root := range anchoredGlobRoots(opencodeDir(c.Cwd, base), pattern) {
			c.Accesses = append(c.Accesses, searched(treeAccess(root), searchInput{kind: "glob", pattern: pattern, in: base}))
		}
	case "grep":
		v, err := f.each("pattern", "path", "include")
		if err != nil {
			return err
		}
		c.Accesses = append(c.Accesses, searched(treeAccess(opencodeGrepRoot(opencodeResolve(c.Cwd, v[1]))),
			searchInput{kind: "pattern", pattern: v[0], in: v[1], filters: filter("files", v[2])}))
	default:
		return unknownTool(c.Client, c.Tool)
	}
	return nil
}

// opencodeDir is where OpenCode's file and search tools take p to be: p
// itself when absolute (handed to the kernel as it stands), else Node's
// path.resolve (or path.join) of it
// against the directory its tools run in, which cleans `..` lexically
// before any link is followed and expands no `~`; that directory when p
// is empty. Joining without the clean, as for the clients that hand a
// relative path to the kernel, would check another file than the one
// OpenCode opens when a link precedes a `..`.
func opencodeDir(cwd, p string) string {
	switch {
	case p == "":
		return cwd
	case strings.HasPrefix(p, "/") || !strings.HasPrefix(cwd, "/"):
		return p
	}
	return filepath.Join(cwd, p)
}

// opencodeGrepRoot is the folder OpenCode's grep searches for path: the
// path itself when it is a folder, else the folder of the file it names
// once links are followed, all of it (OpenCode 1.18.33 resolves the path
// to its real one and runs ripgrep in it or, for a file, in its folder,
// with no filter for the file named), and path's own folder for a path
// that does not exist. Taking a link's own folder instead would check the
// workspace for a grep of a linked file's real folder outside it. path
// is path.resolve's (opencodeResolve), an absolute one too: OpenCode
// takes the real path of that, whose `..` dropped the name before it
// before any link was followed, where the kernel follows the link first.
func opencodeGrepRoot(path string) string {
	if !strings.HasPrefix(path, "/") {
		return path
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return filepath.Dir(path)
	}
	if fi, err := os.Stat(real); err == nil && fi.IsDir() {
		return path
	}
	return filepath.Dir(real)
}

// opencodeResolve is Node's path.resolve of p against the directory
// OpenCode's tools run in, absolute or not, which is how it takes a bash
// call's workdir and the files an apply_patch names.
func opencodeResolve(cwd, p string) string {
	switch {
	case p == "":
		return cwd
	case strings.HasPrefix(p, "/"):
		return filepath.Clean(p)
	case !strings.HasPrefix(cwd, "/"):
		return p
	}
	return filepath.Join(cwd, p)
}

// opencodeSafe is a server's or a tool's name as OpenCode puts it in an
// MCP tool's name: JavaScript's replace(/[^a-zA-Z0-9_-]/g, "_"), which
// works on UTF-16 code units, so a character beyond the BMP becomes two
// underscores.
func opencodeSafe(name string) string {
	var b strings.Builder
	for _, r := range name {
		switch {
		case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		case r > 0xffff:
			b.WriteString("__")
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}

// opencodeOther marks a tool that is not one of OpenCode's own: an MCP
// tool when its name starts with a configured server's name and "_",
// else a custom tool pathgrant cannot map. It is pathgrant's bridge only
// when BridgeServer is the one server whose name fits, its entry starts
// pathgrant's bridge as install-mcp registers it (a project's
// opencode.json may define a server of that name), and the rest of the
// name is one of the bridge's tools.
func opencodeOther(c Call, servers map[string]json.RawMessage) (Call, error) {
	fits := opencodeFits(c.Tool, servers)
	switch {
	case len(fits) == 0:
		return c, unknownTool(c.Client, c.Tool)
	case len(fits) > 1:
		mcpTool(&c, "", false)
	default:
		tool := strings.TrimPrefix(c.Tool, opencodeSafe(fits[0])+"_")
		mcpTool(&c, fits[0], fits[0] == BridgeServer && opencodeRunsBridge(servers[fits[0]]) && bridgeTool(BridgeServer, tool))
	}
	return c, nil
}

// opencodeFits are the servers whose name, as OpenCode puts it in an MCP
// tool's name, followed by "_", starts tool.
func opencodeFits(tool string, servers map[string]json.RawMessage) []string {
	var fits []string
	for s := range servers {
		if strings.HasPrefix(tool, opencodeSafe(s)+"_") {
			fits = append(fits, s)
		}
	}
	return fits
}

// opencodeRunsBridge reports whether an entry of OpenCode's mcp settings
// ({"type": "local", "command": [...]}) starts pathgrant's bridge.
func opencodeRunsBridge(entry json.RawMessage) bool {
	var e struct {
		Type    string   `json:"type"`
		Command []string `json:"command"`
	}
	if json.Unmarshal(entry, &e) != nil || e.Type != "local" || len(e.Command) == 0 {
		return false
	}
	return IsBridgeCommand(e.Command[0], e.Command[1:])
}

// opencodeOutput is the plugin's answer; Command, on an allow, is the
// bash command to run instead (confined).
type opencodeOutput = piOutput

// render answers the plugin. A call pathgrant leaves to OpenCode is let
// through to OpenCode's own permission flow (its permission settings,
// which ask, allow or deny after this hook).
func (opencodeAdapter) render(_ Call, v Verdict) Output {
	if v.Defer {
		return jsonOutput(opencodeOutput{Block: false})
	}
	if v.Allow {
		var in struct {
			Command string `json:"command"`
		}
		if v.Rewrite != nil && json.Unmarshal(v.Rewrite, &in) == nil {
			return jsonOutput(opencodeOutput{Block: false, Command: in.Command})
		}
		return jsonOutput(opencodeOutput{Block: false})
	}
	return jsonOutput(opencodeOutput{Block: true, Reason: v.Reason})
}
