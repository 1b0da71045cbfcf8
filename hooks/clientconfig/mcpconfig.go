package clientconfig

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"pathgrant/appdirs"
	"pathgrant/hooks"
)

// MCPPath is the client's MCP configuration: the project's when project
// is set, else the user's; "" for a client without MCP servers, or
// without a project's own (Cline).
func (c Client) MCPPath(getenv appdirs.Getenv, home, project string) string {
	switch {
	case c.MCPConfig == "", project != "" && c.ProjectMCPConfig == "":
		return ""
	case project != "":
		return filepath.Join(project, c.ProjectMCPConfig)
	case !c.mcpBesideDir:
		return filepath.Join(c.Dir(getenv, home), c.MCPConfig)
	}
	if dir := getenv(c.DirEnv); filepath.IsAbs(dir) {
		return filepath.Join(filepath.Clean(dir), c.MCPConfig)
	}
	return filepath.Join(home, c.MCPConfig)
}

// BridgeConfigured reports whether an MCP configuration of this client
// (its file's bytes) registers a server named hooks.BridgeServer.
func (c Client) BridgeConfigured(data []byte) bool {
	if c.mcpTOML {
		_, _, found := codexServerBlock(string(data))
		return found
	}
	v, err := ihDecode(data)
	doc, ok := v.(*ihObject)
	if err != nil || !ok {
		return false
	}
	if c.name == "opencode" {
		servers, err := doc.object("mcp", false)
		return err == nil && servers != nil && isOpenCodeBridgeEntry(servers.vals[hooks.BridgeServer])
	}
	servers, err := doc.object("mcpServers", false)
	return err == nil && servers != nil && servers.has(hooks.BridgeServer)
}

// jsonMCP is the MCP Installer of a client whose servers are the
// mcpServers object of a JSON file (Claude Code, Gemini CLI, Cursor):
// the server hooks.BridgeServer runs argv. An entry of that name that does not
// run pathgrant's bridge is never replaced or removed.
func jsonMCP(path string, argv []string, uninstall bool) (bool, string, error) {
	return restoringUninstall(path, uninstall, mcpCanonical, func() (bool, string, error) {
		return editSettings(path, func(doc *ihObject) error { return editMCPServers(doc, argv, uninstall) })
	})
}

// typedMCP is jsonMCP for a client whose entries also say their kind
// (Copilot CLI's "local", Factory Droid's "stdio": a command it starts)
// and, with allTools, which of the server's tools the model may call (all
// of the bridge's: Copilot CLI).
func typedMCP(kind string, allTools bool) Installer {
	return func(path string, argv []string, uninstall bool) (bool, string, error) {
		return restoringUninstall(path, uninstall, mcpCanonical, func() (bool, string, error) {
			return editSettings(path, func(doc *ihObject) error {
				if err := editMCPServers(doc, argv, uninstall); err != nil || uninstall {
					return err
				}
				servers, _ := doc.object("mcpServers", false)
				entry, _ := servers.object(hooks.BridgeServer, false)
				entry.setFirst("type", kind)
				if allTools {
					entry.set("tools", []any{"*"})
				}
				return nil
			})
		})
	}
}

func editMCPServers(doc *ihObject, argv []string, uninstall bool) error {
	servers, err := doc.object("mcpServers", !uninstall)
	if err != nil || servers == nil {
		return err
	}
	if cur, ok := servers.vals[hooks.BridgeServer]; ok && !isBridgeEntry(cur) {
		return fmt.Errorf("mcpServers has a server %q that is not pathgrant's bridge; rename it, then run this again", hooks.BridgeServer)
	}
	if uninstall {
		if !servers.has(hooks.BridgeServer) {
			return nil
		}
		servers.del(hooks.BridgeServer)
		if len(servers.keys) == 0 {
			doc.del("mcpServers")
		}
		return nil
	}
	args := make([]any, 0, len(argv)-1)
	for _, a := range argv[1:] {
		args = append(args, a)
	}
	entry, _ := servers.object(hooks.BridgeServer, true)
	entry.set("command", argv[0])
	entry.set("args", args)
	return nil
}

// mcpCanonical is ihCanonical with an empty mcpServers object left out,
// which uninstalling removes.
func mcpCanonical(data []byte) string {
	v, err := ihDecode(data)
	doc, ok := v.(*ihObject)
	if err != nil || !ok {
		return string(data)
	}
	if servers, err := doc.object("mcpServers", false); err == nil && servers != nil && len(servers.keys) == 0 {
		doc.del("mcpServers")
	}
	var buf bytes.Buffer
	ihEncode(&buf, doc, "")
	return buf.String()
}

// isBridgeEntry reports whether an mcpServers entry runs the bridge.
func isBridgeEntry(v any) bool {
	e, ok := v.(*ihObject)
	if !ok {
		return false
	}
	cmd, _ := e.vals["command"].(string)
	list, _ := e.vals["args"].([]any)
	args := make([]string, 0, len(list))
	for _, a := range list {
		s, ok := a.(string)
		if !ok {
			return false
		}
		args = append(args, s)
	}
	return hooks.IsBridgeCommand(cmd, args)
}

// codexMCP is Codex's MCP Installer: the table [mcp_servers.pathgrant]
// of config.toml with command and args, edited as text so that the rest
// of the file (comments, layout, pathgrant's hook trust entries) is kept
// byte for byte.
func codexMCP(path string, argv []string, uninstall bool) (bool, string, error) {
	canon := func(b []byte) string { return strings.TrimSpace(string(b)) }
	return restoringUninstall(path, uninstall, canon, func() (bool, string, error) {
		return editText(path, func(text string) (string, error) { return editCodexMCP(text, argv, uninstall) })
	})
}

// codexHeaders are the ways the bridge's table header may be written.
var codexHeaders = []string{"[mcp_servers.pathgrant]", `[mcp_servers."pathgrant"]`, `[mcp_servers.'pathgrant']`}

// codexServerBlock finds the bridge's table: the text before it, the
// table itself (its header up to the next table header), and whether it
// is there.
func codexServerBlock(text string) (before, block string, found bool) {
	lines := strings.SplitAfter(text, "\n")
	start := -1
	for i, l := range lines {
		h := strings.Join(strings.Fields(strings.TrimSpace(l)), "")
		switch {
		case start < 0 && slices.Contains(codexHeaders, h):
			start = i
		case start >= 0 && strings.HasPrefix(strings.TrimSpace(l), "["):
			return strings.Join(lines[:start], ""), strings.Join(lines[start:i], ""), true
		}
	}
	if start < 0 {
		return text, "", false
	}
	return strings.Join(lines[:start], ""), strings.Join(lines[start:], ""), true
}

func editCodexMCP(text string, argv []string, uninstall bool) (string, error) {
	before, block, found := codexServerBlock(text)
	after := strings.TrimPrefix(text, before+block)
	if found && !codexBlockIsBridge(block) {
		return "", fmt.Errorf("[mcp_servers.%s] is not pathgrant's bridge; rename it, then run this again", hooks.BridgeServer)
	}
	want := codexBlock(argv)
	switch {
	case uninstall && !found:
		return text, nil
	case uninstall:
		return strings.TrimSuffix(before, "\n") + after, nil
	case found && strings.TrimSpace(block) == strings.TrimSpace(want):
		return text, nil
	case found:
		return before + want + codexTail(block, after) + after, nil
	case text == "":
		return want, nil
	case strings.HasSuffix(text, "\n"):
		return text + "\n" + want, nil
	}
	return text + "\n\n" + want, nil
}

// codexTail keeps the blank lines that separated the replaced table from
// the next one.
func codexTail(block, after string) string {
	if after == "" {
		return ""
	}
	return block[len(strings.TrimRight(block, "\n"))+1:]
}

// codexBlock is the bridge's table as install-mcp writes it.
func codexBlock(argv []string) string {
	args := make([]string, 0, len(argv)-1)
	for _, a := range argv[1:] {
		args = append(args, tomlString(a))
	}
	return "[mcp_servers." + hooks.BridgeServer + "]\ncommand = " + tomlString(argv[0]) + "\nargs = [" + strings.Join(args, ", ") + "]\n"
}

// codexBlockIsBridge reports whether the table's command and args start
// the bridge.
func codexBlockIsBridge(block string) bool {
	var cmd string
	var args []string
	for line := range strings.Lines(block) {
		key, val, ok := strings.Cut(strings.TrimSpace(line), "=")
		if !ok {
			continue
		}
		val = strings.TrimSpace(val)
		switch strings.TrimSpace(key) {
		case "command":
			cmd, _ = tomlStringValue(val)
		case "args":
			inner, ok := strings.CutSuffix(strings.TrimPrefix(val, "["), "]")
			if !ok || !strings.HasPrefix(val, "[") {
				return false
			}
			for _, w := range strings.Split(inner, ",") {
				s, err := tomlStringValue(strings.TrimSpace(w))
				if err != nil {
					return false
				}
				args = append(args, s)
			}
		}
	}
	return hooks.IsBridgeCommand(cmd, args)
}

// editText applies edit to the text file at path (missing: empty) and
// writes it back, with a backup, when it changed.
func editText(path string, edit func(string) (string, error)) (bool, string, error) {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, "", err
	}
	exists := err == nil
	text, err := edit(string(old))
	if err != nil {
		return false, "", fmt.Errorf("%s: %w", path, err)
	}
	if text == string(old) {
		return false, "", nil
	}
	var backup string
	if err := writeSettings(path, old, exists, []byte(text), &backup); err != nil {
		return false, "", err
	}
	return true, backup, nil
}

// restoringUninstall runs apply, and when it uninstalls, makes the undo
// exact: if the file now says what it said before the last change that
// pathgrant backed up (canon compares the two), that backup's bytes are
// put back; a file that holds nothing but what install created is
// removed. Installing is apply alone.
func restoringUninstall(path string, uninstall bool, canon func([]byte) string, apply func() (bool, string, error)) (bool, string, error) {
	if !uninstall {
		return apply()
	}
	// read first: a backup apply saves in the same millisecond has the same name
	var was []byte
	if prev := newestBackup(path); prev != "" {
		was, _ = os.ReadFile(prev)
	}
	changed, backup, err := apply()
	if err != nil || !changed {
		return changed, backup, err
	}
	now, err := os.ReadFile(path)
	if err != nil {
		return changed, backup, err
	}
	if was == nil {
		if s := strings.TrimSpace(canon(now)); s == "" || s == "{}" {
			return changed, backup, os.Remove(path)
		}
		return changed, backup, nil
	}
	if canon(was) != canon(now) || bytes.Equal(was, now) {
		return changed, backup, nil
	}
	var ignored string
	return changed, backup, writeSettings(path, nil, false, was, &ignored)
}

// newestBackup is the latest backup pathgrant saved of path, "" if none.
func newestBackup(path string) string {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	matches, _ := filepath.Glob(path + ".pathgrant-backup-*")
	if len(matches) == 0 {
		return ""
	}
	slices.Sort(matches)
	return matches[len(matches)-1]
}

// tomlStringValue reads one basic or literal TOML string followed by nothing
// but an optional comment: a value in a Codex config.toml (mcpconfig.go).
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
