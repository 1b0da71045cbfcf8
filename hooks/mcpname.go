package hooks

import (
	"slices"
	"strings"
)

// bridgeTools are the tools pathgrant's MCP bridge serves, by their exact
// names (package tools defines them; hooks may not import it, and a test
// keeps the two lists equal).
var bridgeTools = []string{"execute_shell_command", "read_file", "write_file", "list_directory"}

// bridgeTool is the one rule by which any adapter takes an MCP tool for
// pathgrant's own bridge, whose calls the hook lets through (an explicit
// allow, which also skips the client's own prompt): the server is exactly
// BridgeServer (the name `pathgrant install-mcp` registers) and the tool
// exactly one of bridgeTools. A look-alike (`pathgrant__x`, `pathgrantx`,
// `PATHGRANT`, another server's tool named `pathgrant`) is any other
// server's tool, answered by the device policy's unknown_tools.
func bridgeTool(server, tool string) bool {
	return server == BridgeServer && slices.Contains(bridgeTools, tool)
}

// mcpName is how a client names an MCP tool to the model and to its hook:
// prefix, the server's name, sep, the tool's name (each client replaces
// characters it does not allow, which none of pathgrant's names holds).
// Server names may hold sep themselves, so a name is never cut at a
// separator to find its server: only the exact names of the bridge's tools
// are the bridge's.
type mcpName struct{ prefix, sep string }

// The MCP tool names of each client, read from its shipped code: Claude
// Code and Qwen Code build mcp__SERVER__TOOL (Codex the same); Gemini CLI
// mcp_SERVER_TOOL; Factory Droid SERVER___TOOL; Cline SERVER__TOOL;
// Copilot CLI SERVER-TOOL.
var (
	claudeMCP  = mcpName{prefix: "mcp__", sep: "__"}
	geminiMCP  = mcpName{prefix: "mcp_", sep: "_"}
	droidMCP   = mcpName{sep: "___"}
	clineMCP   = mcpName{sep: "__"}
	copilotMCP = mcpName{sep: "-"}
)

// is reports whether tool is an MCP tool's name in this form: it starts
// with the prefix, or, in a form without one, holds the separator (the
// client's own tools hold none).
func (n mcpName) is(tool string) bool {
	if n.prefix != "" {
		return strings.HasPrefix(tool, n.prefix)
	}
	return strings.Contains(tool, n.sep)
}

// isBridge reports whether tool is exactly one of the bridge's tools in
// this form: prefix + BridgeServer + sep + one of bridgeTools, nothing
// else. It is never true for a form whose separator occurs inside those
// names (Gemini's "_"): there the name alone cannot say where the
// server's name ends (`mcp_pathgrant_read_file` is also server
// `pathgrant_read`'s tool `file`), and the client must name the server
// apart (geminiMCPCall).
func (n mcpName) isBridge(tool string) bool {
	rest, ok := strings.CutPrefix(tool, n.prefix+BridgeServer+n.sep)
	return ok && bridgeTool(BridgeServer, rest) && n.splitsOneWay()
}

// splitsOneWay reports whether the separator occurs in neither
// BridgeServer nor any bridge tool's name, so that an exact bridge tool
// name splits into server and tool one way only.
func (n mcpName) splitsOneWay() bool {
	if n.sep == "" || strings.Contains(BridgeServer, n.sep) {
		return false
	}
	for _, t := range bridgeTools {
		if strings.Contains(t, n.sep) {
			return false
		}
	}
	return true
}

// mark marks c as a call of the MCP tool tool when the name is in this
// form (ok false: it is not an MCP tool's name). Its server is not named
// (see mcpName), except pathgrant's bridge by the exact rule.
func (n mcpName) mark(c *Call, tool string) (ok bool) {
	if !n.is(tool) {
		return false
	}
	mcpTool(c, "", n.isBridge(tool))
	return true
}
