package clientconfig

import (
	"bytes"
	_ "embed"
	"fmt"

	"pathgrant/hooks"
)

// OpenCode has no hook processes: install-hooks writes this plugin, which
// OpenCode loads from its plugins folder and which sends each tool call to
// `pathgrant-hook opencode` (the protocol is in hooks/opencode.go). It is
// install-time text, kept out of the hook binary.

// OpenCodePlugin is the plugin, with the placeholder HookPlaceholder
// standing for the pathgrant-hook command; OpenCodePluginFor fills it in.
//
//go:embed opencode/pathgrant.js
var OpenCodePlugin string

// OpenCodePluginMarker is the first line of the plugin; install-hooks
// and doctor recognise pathgrant's own file by it.
const OpenCodePluginMarker = "// pathgrant: OpenCode plugin"

// OpenCodePluginFor returns the plugin that runs the hook command argv
// (`/path/pathgrant-hook opencode`, with any further arguments such as
// --socket).
func OpenCodePluginFor(argv []string) string { return withHookArgv(OpenCodePlugin, argv) }

// installOpenCodePlugin writes pathgrant's OpenCode plugin.
var installOpenCodePlugin = ownFile(OpenCodePluginMarker, OpenCodePluginFor)

// opencodeMCP is OpenCode's MCP Installer: the entry hooks.BridgeServer
// of the "mcp" object of opencode.json, {"type": "local", "command":
// argv, "enabled": true}. An entry of that name that does not run
// pathgrant's bridge is never replaced or removed.
func opencodeMCP(path string, argv []string, uninstall bool) (bool, string, error) {
	return restoringUninstall(path, uninstall, opencodeMCPCanonical, func() (bool, string, error) {
		return editSettings(path, func(doc *ihObject) error { return editOpenCodeMCP(doc, argv, uninstall) })
	})
}

func editOpenCodeMCP(doc *ihObject, argv []string, uninstall bool) error {
	servers, err := doc.object("mcp", !uninstall)
	if err != nil || servers == nil {
		return err
	}
	if cur, ok := servers.vals[hooks.BridgeServer]; ok && !isOpenCodeBridgeEntry(cur) {
		return fmt.Errorf("mcp has a server %q that is not pathgrant's bridge; rename it, then run this again", hooks.BridgeServer)
	}
	if uninstall {
		servers.del(hooks.BridgeServer)
		if len(servers.keys) == 0 {
			doc.del("mcp")
		}
		return nil
	}
	command := make([]any, 0, len(argv))
	for _, a := range argv {
		command = append(command, a)
	}
	servers.set(hooks.BridgeServer, newIHObject("type", "local", "command", command, "enabled", true))
	return nil
}

// isOpenCodeBridgeEntry reports whether an entry of OpenCode's mcp object
// starts pathgrant's bridge.
func isOpenCodeBridgeEntry(v any) bool {
	e, ok := v.(*ihObject)
	if !ok || e.vals["type"] != "local" {
		return false
	}
	list, _ := e.vals["command"].([]any)
	words := make([]string, 0, len(list))
	for _, a := range list {
		s, ok := a.(string)
		if !ok {
			return false
		}
		words = append(words, s)
	}
	return len(words) > 0 && hooks.IsBridgeCommand(words[0], words[1:])
}

// opencodeMCPCanonical is ihCanonical with an empty mcp object left out,
// which uninstalling removes.
func opencodeMCPCanonical(data []byte) string {
	v, err := ihDecode(data)
	doc, ok := v.(*ihObject)
	if err != nil || !ok {
		return string(data)
	}
	if servers, err := doc.object("mcp", false); err == nil && servers != nil && len(servers.keys) == 0 {
		doc.del("mcp")
	}
	var buf bytes.Buffer
	ihEncode(&buf, doc, "")
	return buf.String()
}
