// Package clientconfig is the install-time half of the client table:
// for each agent client pathgrant guards, where its settings and MCP
// configuration live, the editors that install-hooks and install-mcp
// run on them (and doctor reads back), and the files a session must never
// write, which the daemon protects. The hook binary never imports it, so
// none of this code (nor crypto/sha256, regexp or the Pi extension's
// text) is linked into the binary every tool call starts; the hook's half
// of each row (its adapter, whether it rewrites a command) is
// hooks.Client, which Client embeds.
package clientconfig

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"pathgrant/appdirs"
	"pathgrant/hooks"
)

// Installer writes the pathgrant hook command argv into the settings file
// at path, or with uninstall removes exactly what it wrote. changed says
// whether the file changed; backup names the copy of the previous file,
// if one was saved.
type Installer func(path string, argv []string, uninstall bool) (changed bool, backup string, err error)

// Client is one agent client with its files: the hook's row
// (hooks.Client) and what differs between clients at install time: where
// its settings live and which of its files a session must never write (a
// session that could rewrite them could switch its own guard off).
type Client struct {
	// Client is the hook's row of the same name, filled in by
	// LookupClient.
	hooks.Client
	// name keys the row: the Name of its hooks.Client.
	name string
	// DirEnv is the environment variable that moves the client's user
	// folder, when it has one; Dir resolves it.
	DirEnv string
	// dir is the user folder relative to home, used unless DirEnv is set.
	dir string
	// envHome: DirEnv names a replacement home folder (dir is then below
	// it) rather than the user folder itself.
	envHome bool
	// envDir, when set, is the user folder below DirEnv's folder
	// (OpenCode's XDG_CONFIG_HOME/opencode).
	envDir string
	// Settings is the file install-hooks edits, relative to Dir;
	// ProjectSettings relative to a project (the personal, uncommitted
	// file where a client has one, since the hook's path is this
	// machine's).
	Settings, ProjectSettings string
	Install                   Installer
	// HookEvents says, for install-hooks' report, which hooks Install
	// registers.
	HookEvents string
	// Reload is what a person does after install-hooks so that a client
	// already running loads (or, uninstalled, drops) the hook: clients
	// read their hooks when they start.
	Reload string
	// ProjectNote is what a person must still do after install-hooks
	// writes a project's hooks, when the client needs a step of its own
	// before it runs them ("" when it needs none).
	ProjectNote string
	// Protected are the files carrying hooks, relative to Dir;
	// ProjectProtected relative to a workspace.
	Protected, ProjectProtected []string
	// HomeDirs are further folders under the home folder that the client
	// loads as its own configuration wherever it runs (OpenCode's
	// ~/.opencode): protected whole, and never a session's root, like
	// Dir.
	HomeDirs []string

	// MCPConfig is the file registering the client's MCP servers, which
	// `pathgrant install-mcp` edits: relative to Dir, or (mcpBesideDir)
	// to the home folder, or to DirEnv's folder when that is set.
	// ProjectMCPConfig is relative to a project. Both are protected like
	// the hook settings (a session that could add a server named
	// pathgrant would be trusted as pathgrant's bridge). Empty, with
	// noMCP saying why, for a client without MCP servers.
	MCPConfig, ProjectMCPConfig string
	mcpBesideDir                bool
	mcpTOML                     bool      // the file is TOML (else JSON)
	InstallMCP                  Installer // registers argv as the server hooks.BridgeServer
	noMCP                       string
}

// configs is the install-time client table, one row per row of the
// hooks table, in its order.
var configs = []Client{
	{name: "claude", DirEnv: "CLAUDE_CONFIG_DIR", dir: ".claude",
		Settings: "settings.json", ProjectSettings: ".claude/settings.local.json", Install: jsonSettings(editClaude),
		HookEvents:       "PreToolUse (every tool, timeout 60 s) and SessionEnd",
		Reload:           "restart Claude Code (quit each running claude and start it again)",
		Protected:        []string{"settings.json", "settings.local.json"},
		ProjectProtected: []string{".claude/settings.json", ".claude/settings.local.json"},
		MCPConfig:        ".claude.json", mcpBesideDir: true, ProjectMCPConfig: ".mcp.json", InstallMCP: jsonMCP},
	{name: "codex", DirEnv: "CODEX_HOME", dir: ".codex",
		Settings: "hooks.json", ProjectSettings: ".codex/hooks.json", Install: installCodex,
		HookEvents:       "PreToolUse and PermissionRequest (every tool, timeout 60 s) and SessionEnd, trusted in config.toml",
		Reload:           "restart Codex (quit each running codex and start it again)",
		ProjectNote:      "Codex runs a project's hooks only once you trust the project in Codex: open codex in it and choose to trust it",
		Protected:        []string{"hooks.json", "config.toml"},
		ProjectProtected: []string{".codex/hooks.json", ".codex/config.toml"},
		MCPConfig:        "config.toml", ProjectMCPConfig: ".codex/config.toml", mcpTOML: true, InstallMCP: codexMCP},
	{name: "gemini", DirEnv: "GEMINI_CLI_HOME", dir: ".gemini", envHome: true,
		Settings: "settings.json", ProjectSettings: ".gemini/settings.json", Install: jsonSettings(editGemini),
		HookEvents: "BeforeTool (every tool, timeout 60000 ms) and SessionEnd, with hooksConfig.enabled on",
		Reload:     "restart Gemini CLI (quit each running gemini and start it again)",
		Protected:  []string{"settings.json"}, ProjectProtected: []string{".gemini/settings.json"},
		MCPConfig: "settings.json", ProjectMCPConfig: ".gemini/settings.json", InstallMCP: jsonMCP},
	{name: "cursor", dir: ".cursor",
		Settings: "hooks.json", ProjectSettings: ".cursor/hooks.json", Install: jsonSettings(editCursor),
		HookEvents: "beforeShellExecution, beforeReadFile and beforeMCPExecution (timeout 60 s, failClosed) and sessionEnd",
		Reload:     "restart Cursor",
		Protected:  []string{"hooks.json"}, ProjectProtected: []string{".cursor/hooks.json"},
		MCPConfig: "mcp.json", ProjectMCPConfig: ".cursor/mcp.json", InstallMCP: jsonMCP},
	{name: "pi", DirEnv: "PI_CODING_AGENT_DIR", dir: ".pi/agent",
		Settings: "extensions/pathgrant.ts", ProjectSettings: ".pi/extensions/pathgrant.ts", Install: installPiExtension,
		HookEvents:       "the extension, which sends every tool_call to the hook and ends the session on session_shutdown",
		Reload:           "run /reload in each running Pi (or restart it)",
		Protected:        []string{"extensions", "settings.json"},
		ProjectProtected: []string{".pi/extensions", ".pi/settings.json"},
		noMCP:            "Pi has no MCP client"},
	{name: "copilot", DirEnv: "COPILOT_HOME", dir: ".copilot",
		Settings: "hooks/pathgrant.json", ProjectSettings: ".github/hooks/pathgrant.json", Install: ownHooksFile(editCopilot),
		HookEvents:  "preToolUse (every tool, timeoutSec 60) and sessionEnd, in a hooks file of pathgrant's own",
		Reload:      "restart Copilot CLI (quit each running copilot and start it again)",
		ProjectNote: "Copilot CLI runs a project's hooks only in a folder you trust: start copilot in it and choose to trust it",
		// settings.json and config.json hold hooks, disableAllHooks and the
		// trusted folders; a trusted project's .github/copilot settings and
		// Claude Code's project settings can switch every hook off.
		Protected:        []string{"hooks", "settings.json", "config.json", "mcp-config.json"},
		ProjectProtected: []string{".github/hooks", ".github/copilot", ".claude/settings.json", ".claude/settings.local.json", ".mcp.json"},
		MCPConfig:        "mcp-config.json", ProjectMCPConfig: ".github/mcp.json", InstallMCP: typedMCP("local", true)},
	{name: "droid", DirEnv: "FACTORY_HOME_OVERRIDE", dir: ".factory", envHome: true,
		Settings: "hooks.json", ProjectSettings: ".factory/hooks.json", Install: jsonSettings(editDroid),
		HookEvents: "PreToolUse (every tool, timeout 60 s) and SessionEnd, in hooks.json (read before settings.json's hooks)",
		Reload:     "restart Droid (quit each running droid and start it again)",
		// hooks.json and settings.json hold hooks and hooksDisabled; droids,
		// commands, skills and plugins carry instructions and hooks of
		// their own.
		Protected: []string{"hooks.json", "hooks", "settings.json", "settings.local.json", "config.json", "mcp.json",
			"droids", "commands", "skills", "plugins"},
		ProjectProtected: []string{".factory/hooks.json", ".factory/hooks", ".factory/settings.json", ".factory/settings.local.json",
			".factory/mcp.json", ".factory/droids", ".factory/commands", ".factory/skills", ".factory/plugins"},
		MCPConfig: "mcp.json", ProjectMCPConfig: ".factory/mcp.json", InstallMCP: typedMCP("stdio", false)},
	{name: "cline", DirEnv: "CLINE_DIR", dir: ".cline",
		Settings: "hooks/PreToolUse", ProjectSettings: ".cline/hooks/PreToolUse", Install: ownFile(ClineHookMarker, ClineHookFor),
		HookEvents: "PreToolUse, a hook script of pathgrant's own (Cline waits up to 120 s)",
		Reload:     "nothing: Cline reads its hooks at every tool call",
		// Cline runs every hook file it finds, a project's without asking,
		// and its plugins, rules, skills and workflows steer it.
		Protected: []string{"hooks", "plugins", "rules", "skills", "workflows", "agents", "data/settings"},
		ProjectProtected: []string{".clinerules", ".cline/hooks", ".cline/plugins", ".cline/rules", ".cline/skills",
			".cline/workflows", ".cline/agents"},
		MCPConfig: "data/settings/cline_mcp_settings.json", InstallMCP: jsonMCP},
	{name: "qwen", DirEnv: "QWEN_HOME", dir: ".qwen",
		Settings: "settings.json", ProjectSettings: ".qwen/settings.json", Install: jsonSettings(editQwen),
		HookEvents: "PreToolUse (every tool, timeout 60 s) and SessionEnd",
		Reload:     "restart Qwen Code (quit each running qwen and start it again)",
		// settings.json holds hooks and disableAllHooks, .env may move the
		// whole folder, and the hooks of extensions, skills and agents run
		// after pathgrant's.
		Protected:        []string{"settings.json", ".env", "trustedFolders.json", "extensions", "skills", "agents"},
		ProjectProtected: []string{".qwen/settings.json", ".qwen/.env", ".qwen/skills", ".qwen/agents"},
		MCPConfig:        "settings.json", ProjectMCPConfig: ".qwen/settings.json", InstallMCP: jsonMCP},
	{name: "opencode", DirEnv: "XDG_CONFIG_HOME", dir: ".config/opencode", envDir: "opencode",
		Settings: "plugins/pathgrant.js", ProjectSettings: ".opencode/plugins/pathgrant.js", Install: installOpenCodePlugin,
		HookEvents: "the plugin, which sends every tool call (tool.execute.before) to the hook; the session is one per OpenCode process and ends with it",
		Reload:     "restart OpenCode (quit each running opencode and start it again)",
		// The config files hold the plugin list, MCP servers and
		// permissions; plugins and tools are code OpenCode runs in its own
		// process (a plugin loaded after pathgrant's sees each call after
		// it); agents and commands carry instructions and permissions of
		// their own; package.json and node_modules are what plugins import.
		// tui.json and tui.jsonc list the plugins the TUI loads into its
		// own process.
		Protected: []string{"plugins", "plugin", "tools", "tool", "opencode.json", "opencode.jsonc", "config.json",
			"tui.json", "tui.jsonc", "package.json", "node_modules", "agents", "agent", "commands", "command", "modes", "mode"},
		ProjectProtected: []string{".opencode", "opencode.json", "opencode.jsonc", "tui.json", "tui.jsonc"},
		HomeDirs:         []string{".opencode"},
		MCPConfig:        "opencode.json", ProjectMCPConfig: "opencode.json", InstallMCP: opencodeMCP},
}

// Clients lists the supported clients' names, sorted: the hooks table's.
func Clients() []string { return hooks.Clients() }

// LookupClient returns the named client's row, its hook's half included;
// an unknown name is the hooks table's error naming the known ones.
func LookupClient(name string) (Client, error) {
	h, err := hooks.LookupClient(name)
	if err != nil {
		return Client{}, err
	}
	for _, c := range configs {
		if c.name == name {
			c.Client = h
			return c, nil
		}
	}
	return Client{}, fmt.Errorf("client %q has no install-time row in clientconfig", name)
}

// Dir is the client's user folder: where DirEnv points when it is set to
// an absolute path, else its folder under home.
func (c Client) Dir(getenv appdirs.Getenv, home string) string {
	env := ""
	if c.DirEnv != "" {
		env = getenv(c.DirEnv)
	}
	switch {
	case !filepath.IsAbs(env):
		return filepath.Join(home, c.dir)
	case c.envHome:
		return filepath.Join(env, c.dir)
	case c.envDir != "":
		return filepath.Join(env, c.envDir)
	}
	return filepath.Clean(env)
}

// SettingsPath is the file install-hooks edits: the project's when
// project is set, else the user's.
func (c Client) SettingsPath(getenv appdirs.Getenv, home, project string) string {
	if project != "" {
		return filepath.Join(project, c.ProjectSettings)
	}
	return filepath.Join(c.Dir(getenv, home), c.Settings)
}

// GlobalProtected are the absolute paths of every client's user hook
// settings: under each client's default folder and, when its DirEnv moves
// it, under the folder it points to as well (the client may be started
// with or without that variable).
func GlobalProtected(getenv appdirs.Getenv, home string) []string {
	noEnv := func(string) string { return "" }
	var out []string
	for _, c := range configs {
		dirs := []string{c.Dir(noEnv, home)}
		if d := c.Dir(getenv, home); d != dirs[0] {
			dirs = append(dirs, d)
		}
		for _, d := range dirs {
			for _, rel := range c.Protected {
				out = append(out, filepath.Join(d, rel))
			}
		}
		for _, ge := range []appdirs.Getenv{noEnv, getenv} {
			if p := c.MCPPath(ge, home, ""); p != "" && !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
		out = append(out, c.HomeFolders(home)...)
	}
	return out
}

// HomeFolders are the client's HomeDirs, absolute.
func (c Client) HomeFolders(home string) []string {
	out := make([]string, 0, len(c.HomeDirs))
	for _, rel := range c.HomeDirs {
		out = append(out, filepath.Join(home, rel))
	}
	return out
}

// ProjectProtected are every client's hook settings inside a workspace,
// relative to it.
func ProjectProtected() []string {
	var out []string
	for _, c := range configs {
		for _, p := range append(slices.Clone(c.ProjectProtected), c.ProjectMCPConfig) {
			if p != "" && !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	return out
}

// ownHooksFile is jsonSettings for a hooks file of pathgrant's own in a
// folder the client loads every file of (Copilot's hooks/*.json): the
// file uninstalling leaves empty is removed, since the client would read
// an empty one as a broken hooks file. The backup of the last version
// stays.
func ownHooksFile(edit func(doc *ihObject, command string, uninstall bool) error) Installer {
	install := jsonSettings(edit)
	return func(path string, argv []string, uninstall bool) (bool, string, error) {
		changed, backup, err := install(path, argv, uninstall)
		if err != nil || !uninstall {
			return changed, backup, err
		}
		if data, err := os.ReadFile(path); err == nil && ihCanonical(data) == ihCanonical([]byte("{}")) {
			if err := os.Remove(path); err != nil {
				return changed, backup, fmt.Errorf("remove %s: %w", path, err)
			}
			changed = true
		}
		return changed, backup, nil
	}
}

// jsonSettings is the Installer for a client whose hooks live in a JSON
// settings file that edit changes.
func jsonSettings(edit func(doc *ihObject, command string, uninstall bool) error) Installer {
	return func(path string, argv []string, uninstall bool) (bool, string, error) {
		return editSettings(path, func(doc *ihObject) error {
			return edit(doc, CommandLine(argv), uninstall)
		})
	}
}
