package hooks

import (
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Gemini CLI: a BeforeTool command hook (settings.json, timeout in
// milliseconds). Input: session_id, transcript_path, cwd, hook_event_name,
// timestamp, tool_name, tool_input. Output: {"decision": "allow"|"deny",
// "reason": ...}; the reason of a deny reaches the model as the tool error.

type geminiInput struct {
	SessionID  string            `json:"session_id"`
	Cwd        string            `json:"cwd"`
	Event      string            `json:"hook_event_name"`
	ToolName   string            `json:"tool_name"`
	ToolInput  json.RawMessage   `json:"tool_input"`
	MCPContext *geminiMCPContext `json:"mcp_context"`
}

// geminiMCPContext is what Gemini CLI says of an MCP tool: its server's
// name and the tool's own name, exactly as the server's configuration and
// the server name them (and how the server is started or reached).
type geminiMCPContext struct {
	ServerName string `json:"server_name"`
	ToolName   string `json:"tool_name"`
}

type geminiAdapter struct{}

// geminiPathKeys are the keys Gemini CLI's tools name a path with (0.61.0:
// file_path and dir_path; earlier versions absolute_path, path and
// directory); a call naming two of them is refused (fields.path).
var geminiPathKeys = []string{"file_path", "absolute_path", "path", "dir_path", "directory"}

func (geminiAdapter) parse(raw []byte) (Call, error) {
	var in geminiInput
	if err := json.Unmarshal(raw, &in); err != nil {
		return Call{}, malformed("%v", err)
	}
	if in.Event != "BeforeTool" {
		return Call{}, malformed("event %q is not BeforeTool", in.Event)
	}
	if in.ToolName == "" {
		return Call{}, malformed("no tool_name")
	}
	c := Call{Client: "gemini", Event: in.Event, Tool: in.ToolName, ClientSession: in.SessionID, Cwd: in.Cwd}
	if touchesNoFile(c.Client, in.ToolName) {
		c.NoFiles = true
		return c, nil
	}
	if geminiMCPCall(&c, in.ToolName, in.MCPContext) {
		return c, nil
	}
	f, err := decodeObject(in.ToolInput, "tool_input")
	if err != nil {
		return Call{}, err
	}
	switch in.ToolName {
	case "run_shell_command":
		cmd, err := f.command(in.ToolName)
		if err != nil {
			return Call{}, err
		}
		dir, err := f.path(geminiPathKeys, "dir_path", "directory")
		if err != nil {
			return Call{}, err
		}
		c.Accesses = append(c.Accesses, shellCommand(literalHome(c.Cwd, orDefault(dir, c.Cwd)), cmd))
		c.Shell, c.ToolInput = true, in.ToolInput
	case "read_file":
		p, err := f.needPath(geminiPathKeys, in.ToolName, "file_path", "absolute_path", "path")
		if err != nil {
			return Call{}, err
		}
		for _, v := range geminiFiles(c.Cwd, p) {
			c.Accesses = append(c.Accesses, readAccess(v))
		}
	case "write_file", "replace", "edit":
		p, err := f.needPath(geminiPathKeys, in.ToolName, "file_path", "absolute_path", "path")
		if err != nil {
			return Call{}, err
		}
		if in.ToolName != "write_file" && geminiCorrects(c.Cwd, p) {
			return Call{}, malformed("tool %s: %q names no file in %s, and Gemini CLI would edit another file of that name it finds in its workspace folders: name the file by its absolute path", in.ToolName, p, c.Cwd)
		}
		for _, v := range geminiFiles(c.Cwd, p) {
			c.Accesses = append(c.Accesses, writeAccess(v))
		}
	case "list_directory", "ls":
		p, err := f.path(geminiPathKeys, "dir_path", "path")
		if err != nil {
			return Call{}, err
		}
		c.Accesses = append(c.Accesses, readAccess(literalHome(c.Cwd, orDefault(p, c.Cwd))))
	case "glob":
		pattern, err := f.need(in.ToolName, "pattern")
		if err != nil {
			return Call{}, err
		}
		base, err := f.path(geminiPathKeys, "dir_path", "path")
		if err != nil {
			return Call{}, err
		}
		for _, root := range globRootsAnyCase(literalHome(c.Cwd, orDefault(base, c.Cwd)), pattern) {
			c.Accesses = append(c.Accesses, searched(treeAccess(root), searchInput{kind: "glob", pattern: pattern, in: base}))
		}
	case "search_file_content", "grep_search", "grep":
		a, err := geminiGrep(c.Cwd, f)
		if err != nil {
			return Call{}, err
		}
		c.Accesses = append(c.Accesses, a)
	case "read_many_files":
		patterns, err := f.strs("include", "paths")
		if err != nil {
			return Call{}, err
		}
		if len(patterns) == 0 {
			return Call{}, malformed("tool read_many_files: no paths")
		}
		for _, p := range patterns {
			for _, root := range globRootsAnyCase(c.Cwd, p) {
				c.Accesses = append(c.Accesses, searched(treeAccess(root), searchInput{kind: "glob", pattern: p}))
			}
		}
	default:
		return c, unknownTool(c.Client, in.ToolName)
	}
	return c, nil
}

// geminiMCPCall marks c as a call of an MCP tool when Gemini CLI says it
// is one. Gemini names one mcp_SERVER_TOOL, and server names may hold "_",
// so the name alone never says the server (see mcpName.isBridge): the
// hook's mcp_context, which Gemini sends for every configured server's
// tool (0.61.0), names server and tool apart, and the call is the
// bridge's only when those are exactly the bridge and one of its tools,
// and the name is the one Gemini builds from them. Without mcp_context an
// mcp_ name is any other server's tool.
func geminiMCPCall(c *Call, tool string, ctx *geminiMCPContext) bool {
	if ctx == nil {
		return geminiMCP.mark(c, tool)
	}
	bridge := bridgeTool(ctx.ServerName, ctx.ToolName) && tool == geminiMCP.prefix+ctx.ServerName+geminiMCP.sep+ctx.ToolName
	mcpTool(c, ctx.ServerName, bridge)
	return true
}

// geminiGrep is a grep_search: a search of its dir_path (the cwd by
// default), shown with its pattern and the files it includes.
func geminiGrep(cwd string, f fields) (Access, error) {
	base, err := f.path(geminiPathKeys, "dir_path", "path")
	if err != nil {
		return Access{}, err
	}
	v, err := f.each("pattern", "include_pattern")
	if err != nil {
		return Access{}, err
	}
	in := searchInput{kind: "pattern", pattern: v[0], in: base, filters: filter("files", v[1])}
	return searched(searchAccess(literalHome(cwd, orDefault(base, cwd))), in), nil
}

// geminiFiles are the files Gemini CLI 0.61.0's read_file, write_file and
// replace may open for the path p (resolveDefensiveToolPath in its
// paths utilities, then path.resolve against the project folder): p
// without its NUL bytes, and, for a p starting with "@", p without the
// "@" and the slashes after it, which Gemini opens unless a file named
// as written exists ("@/home/u/.ssh/id_rsa" is "home/u/.ssh/id_rsa" in
// the project folder). Which of the two exists when Gemini looks is
// Gemini's, so both are checked. Gemini expands no "~": "~/.bashrc" is a
// folder named "~" in the project folder (literalHome).
func geminiFiles(cwd, p string) []string {
	p = strings.ReplaceAll(p, "\x00", "")
	out := []string{literalHome(cwd, p)}
	if stripped := geminiStripAt(p); stripped != "" {
		out = append(out, literalHome(cwd, stripped))
	}
	return out
}

// geminiStripAt is p without its leading "@" and the slashes after it,
// "" when p does not start with "@" or holds nothing more.
func geminiStripAt(p string) string {
	if len(p) < 2 || p[0] != '@' {
		return ""
	}
	return strings.TrimLeft(p[1:], `/\`)
}

// geminiCorrects reports whether Gemini CLI 0.61.0's replace would look
// for another file than the one p names (correctPath in its
// pathCorrector): a relative p, once sanitized as resolveDefensiveToolPath
// does, that names no existing file in the project folder is searched for
// by name in every workspace folder (those added with
// --include-directories too, which the hook is not told of), and a file
// found there is edited instead.
func geminiCorrects(cwd, p string) bool {
	if path.IsAbs(p) || !strings.HasPrefix(cwd, "/") {
		return false
	}
	p = strings.ReplaceAll(p, "\x00", "")
	exists := func(rel string) bool {
		_, err := os.Stat(filepath.Join(cwd, rel))
		return err == nil
	}
	sanitized := p
	if stripped := geminiStripAt(p); stripped != "" && !exists(p) {
		first, _, _ := strings.Cut(strings.ReplaceAll(stripped, `\`, "/"), "/")
		if strings.HasPrefix(p, "@/") || strings.HasPrefix(p, `@\`) || !exists("@"+first) {
			sanitized = stripped
		}
	}
	return !exists(sanitized)
}

type geminiOutput struct {
	Decision string              `json:"decision"`
	Reason   string              `json:"reason,omitempty"`
	Hook     *geminiHookSpecific `json:"hookSpecificOutput,omitempty"`
}

// geminiHookSpecific carries a tool input rewritten to run confined (ExecWrap).
type geminiHookSpecific struct {
	Event     string          `json:"hookEventName"`
	ToolInput json.RawMessage `json:"tool_input"`
}

func (geminiAdapter) render(_ Call, v Verdict) Output {
	switch {
	case v.Defer: // no decision: Gemini CLI's own confirmation applies
		return jsonOutput(struct{}{})
	case v.Allow && v.Rewrite != nil:
		return jsonOutput(geminiOutput{Decision: "allow", Hook: &geminiHookSpecific{"BeforeTool", v.Rewrite}})
	case v.Allow:
		return jsonOutput(geminiOutput{Decision: "allow"})
	}
	return jsonOutput(geminiOutput{Decision: "deny", Reason: v.Reason})
}
