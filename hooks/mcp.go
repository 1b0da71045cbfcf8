package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"pathgrant/appdirs"
	"pathgrant/wire"
)

// BridgeServer is the name pathgrant's MCP bridge is registered under in
// every client's MCP configuration (`pathgrant install-mcp`).
const BridgeServer = "pathgrant"

// The values of the device policy's unknown_tools setting: what a hook
// does with another server's MCP tool, whose file accesses it cannot know.
const (
	AskClient = "ask-client" // no decision: the client's own permission flow decides
	DenyTool  = "deny"       // refuse it
)

// mcpTool marks c as a call of an MCP tool of server (empty when the
// client does not say which server).
func mcpTool(c *Call, server string) {
	c.MCP, c.MCPServer = true, server
}

// mcpVerdict answers an MCP tool call. Calls of pathgrant's own bridge
// are let through: the bridge sends each one to the daemon, which checks
// and confines it for the session of the agent process. So that this
// session exists (and is the hook's) before the bridge's first call, the
// hook first checks a read of the client's cwd, which registers a
// hook-only client's session and binds it to the agent process; a daemon
// that does not answer denies. Any other server's tool gets no decision
// from pathgrant (the client asks its user as it would without the hook),
// without asking the daemon, unless the device policy says
// unknown_tools = "deny"; a policy file that cannot be read denies.
func mcpVerdict(ctx context.Context, c Call, getenv appdirs.Getenv, socket string) (Verdict, []wire.Answer, error) {
	if c.MCPServer == BridgeServer {
		return bridgeVerdict(ctx, c, getenv, socket)
	}
	v, err := otherMCPVerdict(c, getenv)
	return v, nil, err
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

// otherMCPVerdict answers another server's MCP tool from the device
// policy's unknown_tools setting.
func otherMCPVerdict(c Call, getenv appdirs.Getenv) (Verdict, error) {
	what := fmt.Sprintf("MCP tool %q", c.Tool)
	if c.MCPServer != "" {
		what += fmt.Sprintf(" of server %q", c.MCPServer)
	}
	setting, err := UnknownTools(getenv)
	switch {
	case err != nil:
		return Verdict{Reason: "pathgrant: " + what + " denied: " + err.Error()}, err
	case setting == DenyTool:
		return Verdict{Reason: "pathgrant: " + what + " is not one pathgrant can check, and the device policy says unknown_tools = \"deny\""}, nil
	}
	return Verdict{Defer: true, Reason: "pathgrant: " + what + " is left to " + c.Client + "'s own permission flow (unknown_tools = \"ask-client\")"}, nil
}

// UnknownTools reads the device policy's unknown_tools setting from
// $XDG_CONFIG_HOME/pathgrant/policy.toml (or policy.json) with the
// standard library alone, since the hook must start fast: no file means
// the default, AskClient. Both files, a value that is neither setting, or
// a line it cannot read is an error, on which the caller denies.
func UnknownTools(getenv appdirs.Getenv) (string, error) {
	home, err := appdirs.Home(getenv)
	if err != nil {
		return "", err
	}
	dir := appdirs.ConfigDir(getenv, home)
	tomlData, tomlErr := os.ReadFile(filepath.Join(dir, "policy.toml"))
	jsonData, jsonErr := os.ReadFile(filepath.Join(dir, "policy.json"))
	for _, err := range []error{tomlErr, jsonErr} {
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("device policy: %w", err)
		}
	}
	var v, file string
	switch {
	case tomlErr == nil && jsonErr == nil:
		return "", fmt.Errorf("device policy: both policy.toml and policy.json exist in %s", dir)
	case tomlErr == nil:
		file = "policy.toml"
		v, err = tomlUnknownTools(string(tomlData))
	case jsonErr == nil:
		file = "policy.json"
		v, err = jsonUnknownTools(jsonData)
	}
	if err != nil {
		return "", fmt.Errorf("device policy %s: %w", filepath.Join(dir, file), err)
	}
	switch v {
	case "":
		return AskClient, nil
	case AskClient, DenyTool:
		return v, nil
	}
	return "", fmt.Errorf("device policy in %s: unknown_tools %q is neither %q nor %q", dir, v, AskClient, DenyTool)
}

// tomlUnknownTools finds the top-level key unknown_tools in a TOML
// document: one string value, at most once. The device policy has no
// tables, so a table header is an error rather than a key skipped.
func tomlUnknownTools(doc string) (string, error) {
	value, found := "", false
	for n, line := range strings.Split(doc, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "[") && !strings.Contains(t, "=") {
			return "", fmt.Errorf("line %d: a table, which the device policy never has", n+1)
		}
		key, val, ok := strings.Cut(t, "=")
		if !ok || strings.Trim(strings.TrimSpace(key), `"'`) != "unknown_tools" {
			continue
		}
		v, err := tomlStringValue(strings.TrimSpace(val))
		switch {
		case err != nil:
			return "", fmt.Errorf("line %d: unknown_tools: %w", n+1, err)
		case found:
			return "", fmt.Errorf("line %d: unknown_tools given twice", n+1)
		}
		value, found = v, true
	}
	return value, nil
}

// tomlStringValue reads one basic or literal TOML string followed by nothing
// but an optional comment.
func tomlStringValue(s string) (string, error) {
	if s == "" || (s[0] != '"' && s[0] != '\'') {
		return "", errors.New("not a string")
	}
	end := strings.IndexByte(s[1:], s[0])
	if end < 0 {
		return "", errors.New("unterminated string")
	}
	word, rest := s[:end+2], strings.TrimSpace(s[end+2:])
	if rest != "" && rest[0] != '#' {
		return "", fmt.Errorf("unexpected %q after the string", rest)
	}
	if s[0] == '\'' {
		return word[1 : len(word)-1], nil
	}
	v, err := strconv.Unquote(word)
	if err != nil {
		return "", fmt.Errorf("bad string %s", word)
	}
	return v, nil
}

func jsonUnknownTools(data []byte) (string, error) {
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(data, &doc); err != nil {
		return "", err
	}
	raw, ok := doc["unknown_tools"]
	if !ok {
		return "", nil
	}
	var v string
	if err := json.Unmarshal(raw, &v); err != nil {
		return "", errors.New("unknown_tools is not a string")
	}
	return v, nil
}

// claudeMCPServer is the server of a Claude Code or Codex MCP tool name,
// mcp__SERVER__TOOL; ok is false for a name without the mcp__ prefix.
func claudeMCPServer(tool string) (server string, ok bool) {
	rest, ok := strings.CutPrefix(tool, "mcp__")
	if !ok {
		return "", false
	}
	server, _, _ = strings.Cut(rest, "__")
	return server, true
}

// geminiMCPServer is the server of a Gemini CLI MCP tool: the hook's
// mcp_context names it; else the name is mcp_SERVER_TOOL, the server
// holding no underscore (as Gemini CLI itself parses it).
func geminiMCPServer(tool string, ctx *geminiMCPContext) (server string, ok bool) {
	if ctx != nil {
		return ctx.ServerName, true
	}
	rest, ok := strings.CutPrefix(tool, "mcp_")
	if !ok {
		return "", false
	}
	server, _, found := strings.Cut(rest, "_")
	if !found {
		return "", true
	}
	return server, true
}

// cursorMCPServer is BridgeServer when Cursor's beforeMCPExecution names
// the server's command as `…/pathgrant mcp`, which is what install-mcp
// registers; any other command, or a remote server's url, is another
// server, not named (Cursor's hook input carries no server name).
func cursorMCPServer(command, url string) string {
	if words := strings.Fields(command); url == "" && len(words) > 0 && isBridgeCommand(words[0], words[1:]) {
		return BridgeServer
	}
	return ""
}
