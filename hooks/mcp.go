package hooks

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"pathgrant/appdirs"
	"pathgrant/wire"
)

// BridgeServer is the name pathgrant's MCP bridge is registered under in
// every client's MCP configuration (`pathgrant install-mcp`).
const BridgeServer = "pathgrant"

// mcpTool marks c as a call of an MCP tool: of pathgrant's own bridge
// when bridge (which only the exact rule of bridgeTool may decide), else
// of server, named for messages only ("" when the client does not say
// which server apart from the tool's name).
func mcpTool(c *Call, server string, bridge bool) {
	c.MCP, c.Bridge, c.MCPServer = true, bridge, server
	if bridge {
		c.MCPServer = BridgeServer
	}
}

// mcpVerdict answers an MCP tool call. Calls of pathgrant's own bridge
// are let through: the bridge sends each one to the daemon, which checks
// and confines it for the session of the agent process. So that this
// session exists (and is the hook's) before the bridge's first call, the
// hook first checks a read of the client's cwd, which registers a
// hook-only client's session and binds it to the agent process; a daemon
// that does not answer denies. Any other server's tool is asked of the
// daemon as an other-MCP check, which it answers from the device
// policy's unknown_tools: left to the client (the client asks its user as
// it would without the hook) under "ask-client", the default, else
// denied; a daemon that does not answer denies.
func mcpVerdict(ctx context.Context, c Call, getenv appdirs.Getenv, socket string) (Verdict, []wire.Answer, error) {
	if c.Bridge {
		return bridgeVerdict(ctx, c, getenv, socket)
	}
	return otherMCPVerdict(ctx, c, getenv, socket)
}

// bridgeVerdict lets a call of pathgrant's own bridge through once the
// session is bound (see mcpVerdict).
func bridgeVerdict(ctx context.Context, c Call, getenv appdirs.Getenv, socket string) (Verdict, []wire.Answer, error) {
	var answers []wire.Answer
	if strings.HasPrefix(c.Cwd, "/") {
		c.Accesses = []Access{readAccess(c.Cwd)}
		v, ans, err := decide(ctx, c, getenv, socket)
		if err != nil || !v.Allow {
			return v, ans, err
		}
		answers = ans
	}
	return Verdict{Allow: true, Granted: true,
		Reason: "pathgrant: " + c.Tool + " is pathgrant's own MCP tool: its bridge checks and confines each call"}, answers, nil
}

// otherMCPVerdict answers another server's MCP tool with the daemon's
// reading of the device policy's unknown_tools setting.
func otherMCPVerdict(ctx context.Context, c Call, getenv appdirs.Getenv, socket string) (Verdict, []wire.Answer, error) {
	what := fmt.Sprintf("MCP tool %q", c.Tool)
	if c.MCPServer != "" {
		what += fmt.Sprintf(" of server %q", c.MCPServer)
	}
	req := unlistedRequest(c, getenv)
	req.OtherMCP, req.MCPServer = true, c.MCPServer
	return unlistedVerdict(ctx, c, getenv, socket, req, unlistedTerms{
		leftReason:   "pathgrant: " + what + " is left to " + c.Client + "'s own permission flow (unknown_tools = \"ask-client\")",
		deniedReason: what + " is not one pathgrant can check, so it is denied",
	})
}

// cursorMCPServer is BridgeServer when Cursor's beforeMCPExecution names
// the server's command as `…/pathgrant mcp`, which is what install-mcp
// registers; any other command, or a remote server's url, is another
// server, not named (Cursor's hook input carries no server name).
func cursorMCPServer(command, url string) string {
	if words := strings.Fields(command); url == "" && len(words) > 0 && IsBridgeCommand(words[0], words[1:]) {
		return BridgeServer
	}
	return ""
}

// IsBridgeCommand reports whether command and args start pathgrant's
// bridge as install-mcp registers it: a pathgrant binary with the
// argument mcp, and at most a --socket PATH.
func IsBridgeCommand(command string, args []string) bool {
	if filepath.Base(command) != "pathgrant" || len(args) == 0 || args[0] != "mcp" {
		return false
	}
	return len(args) == 1 || len(args) == 3 && args[1] == "--socket" && filepath.IsAbs(args[2])
}
