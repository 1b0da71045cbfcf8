// Package protected declares the workspace files that a person's own
// tools run without being asked: git's configuration and hooks, the
// agents' project settings, editor task folders, shell start-up files.
// A session that could write one could plant code that runs later,
// outside any confinement, the next time the person opens a shell, an
// editor or runs git there. The guard denies writing, moving or deleting
// them; the confined view keeps them read-only; what neither can stop (a
// repository made inside a command) is checked after the run.
//
// The package is a leaf (standard library only, no regexp) so that the
// lean confinement front end can link it.
package protected

import (
	"slices"
	"strings"
)

// Kind says where in a workspace a member is matched.
type Kind int

// The kinds of member.
const (
	// Anywhere: a name protected at any depth, with everything below it.
	Anywhere Kind = iota
	// GitMember: an entry of a repository's git directory (a folder named
	// .git, a .git file's gitdir: target, a bare repository), with
	// everything below it.
	GitMember
)

// Member is one row of the protected set.
type Member struct {
	// Key names the member in the device policy's allow_protected:
	// ".vscode", ".git/config".
	Key string
	// Name is the entry's name, compared case-insensitively.
	Name string
	Kind Kind
	// Dir says the member is a folder.
	Dir bool
	// Why says what runs because of it.
	Why string
	// Hold says the confined view holds the member's place at the top of
	// a workspace when it is absent (an empty read-only folder), so that
	// a command cannot create it: the members a tool runs by itself on
	// opening the folder (an agent's project settings and MCP servers,
	// editor tasks). The others (shell start-up files, .gitconfig,
	// .gitmodules, .ripgreprc, .envrc) run only where the person pointed
	// a tool at the workspace (HOME, direnv allow, RIPGREP_CONFIG_PATH,
	// submodule update); one made during a command is moved aside after
	// it (sandbox/afterrun), which saves a mount per command for each.
	Hold bool
}

// members is the set. Deliberately left out, inside a git directory:
// objects/info/alternates (git reads objects from the folders it names,
// which changes what content git sees but runs nothing, and repack writes
// objects/info), remotes/ and branches/ (legacy remote URLs; the ext::
// transport that would run a program is off by default), description,
// refs, logs, the index and HEAD (what normal work writes).
var members = []Member{
	{".git/config", "config", GitMember, false, "git's configuration names programs git runs (core.fsmonitor, core.pager, core.hooksPath, aliases, filter and diff drivers)", false},
	{".git/config.worktree", "config.worktree", GitMember, false, "per-worktree configuration git reads when extensions.worktreeConfig is on", false},
	{".git/commondir", "commondir", GitMember, false, "names the folder git reads its configuration and hooks from", false},
	{".git/hooks", "hooks", GitMember, true, "programs git runs on commit, checkout, merge and push", false},
	{".git/info", "info", GitMember, true, "info/attributes selects filter and diff drivers; info/exclude and sparse-checkout change what git shows", false},
	{".git/worktrees", "worktrees", GitMember, true, "each linked worktree's git directory: its commondir and config.worktree decide where git reads configuration and hooks", false},
	{".git/modules", "modules", GitMember, true, "each submodule's git directory, with its own configuration and hooks", false},
	{".git/rebase-merge", "rebase-merge", GitMember, true, "an interrupted rebase's todo list: its exec lines run when the person continues", false},
	{".git/rebase-apply", "rebase-apply", GitMember, true, "an interrupted am or rebase: git resumes it when the person continues", false},
	{".git/sequencer", "sequencer", GitMember, true, "an interrupted cherry-pick or revert's todo list: its exec lines run when the person continues", false},
	{".claude", ".claude", Anywhere, true, "Claude Code's project settings, hooks, commands and agents", true},
	{".codex", ".codex", Anywhere, true, "Codex's project configuration and hooks", true},
	{".gemini", ".gemini", Anywhere, true, "Gemini CLI's project settings and hooks", true},
	{".cursor", ".cursor", Anywhere, true, "Cursor's project hooks, rules and MCP servers", true},
	{".pi", ".pi", Anywhere, true, "Pi's project settings and extensions", true},
	{".opencode", ".opencode", Anywhere, true, "OpenCode's project plugins, tools, agents and configuration: code OpenCode loads into its own process", true},
	{"opencode.json", "opencode.json", Anywhere, false, "OpenCode's project configuration: its plugins, MCP servers (which it starts) and permissions", true},
	{"opencode.jsonc", "opencode.jsonc", Anywhere, false, "OpenCode's project configuration, with comments", true},
	{"tui.json", "tui.json", Anywhere, false, "OpenCode's project TUI configuration: its plugins are code the OpenCode TUI loads into its own process", true},
	{"tui.jsonc", "tui.jsonc", Anywhere, false, "OpenCode's project TUI configuration, with comments: its plugins are code the OpenCode TUI loads", true},
	{".mcp.json", ".mcp.json", Anywhere, false, "the project's MCP servers, which agents start", true},
	{".vscode", ".vscode", Anywhere, true, "editor tasks, launch configurations and interpreter paths the editor runs", true},
	{".idea", ".idea", Anywhere, true, "IDE run configurations and tool paths", true},
	{".envrc", ".envrc", Anywhere, false, "direnv runs it on entering the folder", false},
	{".bashrc", ".bashrc", Anywhere, false, "bash runs it (sandbox-runtime's mandatory deny list)", false},
	{".bash_profile", ".bash_profile", Anywhere, false, "bash runs it at login (sandbox-runtime's mandatory deny list)", false},
	{".zshrc", ".zshrc", Anywhere, false, "zsh runs it (sandbox-runtime's mandatory deny list)", false},
	{".zprofile", ".zprofile", Anywhere, false, "zsh runs it at login (sandbox-runtime's mandatory deny list)", false},
	{".profile", ".profile", Anywhere, false, "login shells run it (sandbox-runtime's mandatory deny list)", false},
	{".gitconfig", ".gitconfig", Anywhere, false, "git's configuration where HOME or an include points (sandbox-runtime's mandatory deny list)", false},
	{".gitmodules", ".gitmodules", Anywhere, false, "submodule URLs and paths git clones and checks out (sandbox-runtime's mandatory deny list)", false},
	{".ripgreprc", ".ripgreprc", Anywhere, false, "ripgrep's options, which can name a preprocessor it runs (sandbox-runtime's mandatory deny list)", false},
}

// GitEntry is the member a .git entry itself is: a .git file or folder
// made by hand is a repository whose gitdir:, configuration and hooks its
// writer chooses. It is not in Members (it cannot be protected when
// absent without breaking git init); the guard denies writing one, and a
// repository made during a command is checked afterwards.
var GitEntry = Member{".git", ".git", Anywhere, false, "a .git file or folder is a repository whose gitdir: pointer, configuration and hooks its writer chooses", false}

// HeadEntry is the member a HEAD file is in a folder that already holds a
// git member (config, hooks): writing it there makes the folder a
// repository git uses.
var HeadEntry = Member{"HEAD", "HEAD", GitMember, false, "a HEAD file makes a folder holding git's configuration or hooks a repository git uses", false}

// Members returns the protected set, one row per member.
func Members() []Member { return slices.Clone(members) }

// Named returns the member whose key is key (case-insensitively).
func Named(key string) (Member, bool) {
	for _, m := range slices.Concat(members, []Member{GitEntry, HeadEntry}) {
		if strings.EqualFold(m.Key, key) {
			return m, true
		}
	}
	return Member{}, false
}

// AnywhereNamed returns the Anywhere member named name, case-insensitively.
func AnywhereNamed(name string) (Member, bool) { return find(name, Anywhere) }

// GitNamed returns the GitMember named name, case-insensitively.
func GitNamed(name string) (Member, bool) { return find(name, GitMember) }

func find(name string, k Kind) (Member, bool) {
	for _, m := range members {
		if m.Kind == k && strings.EqualFold(m.Name, name) {
			return m, true
		}
	}
	return Member{}, false
}

// IsGitName reports whether name is .git in any case.
func IsGitName(name string) bool { return strings.EqualFold(name, ".git") }
