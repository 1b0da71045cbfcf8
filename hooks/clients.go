package hooks

import (
	"fmt"
	"slices"
	"strings"
)

// Client is one agent client pathgrant guards, with what the hook needs
// of it: how its hook talks and how a call is answered. Where its files
// live, how install-hooks and install-mcp edit them and which of them a
// session must never write are install-time parts, in
// hooks/clientconfig, whose table has one row per row of this one (a
// test holds the two to the same names): the hook binary links none of
// that code. Adding a client is adding a row to both.
type Client struct {
	Name string
	// Title is the client's name as its makers write it, for messages.
	Title   string
	adapter adapter
	// NoFileTools are the client's tools known to touch no local file
	// (nofiles.go): the hook leaves them to the client's own permission
	// flow without asking the daemon. Any other tool it cannot map is
	// refused, unless the device policy says unmapped_tools =
	// "ask-client".
	NoFileTools []string
	// NoOwnTools: the client's hook events name no tool of its own
	// (Cursor's are shell commands, file reads and MCP tools), so none
	// can be a tool pathgrant cannot map.
	NoOwnTools bool
	// NoOwnFlow: the client has no permission flow of its own (Pi runs
	// every tool call it does not block), so a call the hook would leave
	// to the client is blocked instead.
	NoOwnFlow bool
	// Rewrites: the client's hook can replace a shell tool's command, so
	// a command it lets through runs confined under `pathgrant-confine
	// exec`. Claude Code and Codex through PreToolUse updatedInput with
	// an explicit allow (Codex 0.169 accepts nothing else with it),
	// Gemini CLI through hookSpecificOutput.tool_input, Pi through its
	// extension setting the call's input.command, OpenCode through its
	// plugin setting the call's args.command. Cursor's
	// beforeShellExecution answers only allow or deny.
	Rewrites bool
	// shell is how the client picks the shell it hands a rewritten
	// command to (shell.go): the hook refuses a command the client would
	// give a shell that cannot read the wrapper.
	shell shellPick
}

// clients is the hook's side of the client table.
var clients = []Client{
	{Name: "claude", Title: "Claude Code", Rewrites: true, shell: shellClaude, adapter: claudeAdapter{}, NoFileTools: claudeNoFileTools},
	{Name: "codex", Title: "Codex", Rewrites: true, shell: shellCodex, adapter: codexAdapter{}, NoFileTools: codexNoFileTools},
	{Name: "gemini", Title: "Gemini CLI", Rewrites: true, shell: shellBash, adapter: geminiAdapter{}, NoFileTools: geminiNoFileTools},
	{Name: "cursor", Title: "Cursor", NoOwnTools: true, adapter: cursorAdapter{}},
	{Name: "pi", Title: "Pi", Rewrites: true, shell: shellPi, NoOwnFlow: true, adapter: piAdapter{}},
	{Name: "copilot", Title: "GitHub Copilot CLI", Rewrites: true, shell: shellCopilot, adapter: copilotAdapter{}, NoFileTools: copilotNoFileTools},
	{Name: "droid", Title: "Factory Droid", Rewrites: true, shell: shellBash, adapter: droidAdapter{}, NoFileTools: droidNoFileTools},
	{Name: "cline", Title: "Cline", Rewrites: true, shell: shellBash, adapter: clineAdapter{}, NoFileTools: clineNoFileTools},
	{Name: "qwen", Title: "Qwen Code", adapter: qwenAdapter{}, NoFileTools: qwenNoFileTools},
	{Name: "opencode", Title: "OpenCode", Rewrites: true, shell: shellPlugin, adapter: opencodeAdapter{}, NoFileTools: opencodeNoFileTools},
}

// Clients lists the supported clients' names, sorted.
func Clients() []string {
	out := make([]string, 0, len(clients))
	for _, c := range clients {
		out = append(out, c.Name)
	}
	slices.Sort(out)
	return out
}

// LookupClient returns the named client's row; an unknown name is an
// error naming the known ones.
func LookupClient(name string) (Client, error) {
	for _, c := range clients {
		if c.Name == name {
			return c, nil
		}
	}
	return Client{}, fmt.Errorf("unknown client %q (want %s)", name, strings.Join(Clients(), ", "))
}
