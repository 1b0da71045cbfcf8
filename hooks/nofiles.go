package hooks

import "slices"

// The tools of each client known to touch no local file of the person's:
// web search and a web fetch run at the client's service (the model gives
// a query or a URL; the search or the fetch runs elsewhere), to-do and
// task lists and plans the client keeps in its own state, questions to
// the person, sub-agents whose own tool calls come through this hook,
// and the client's bookkeeping (its tool search,
// structured answers, notifications). pathgrant has nothing to check in
// them: the hook answers without asking the daemon and leaves the call to
// the client's own permission flow, as if the hook were not there.
//
// The names are read from each client's shipped code (Claude Code
// 2.1.328, Codex 0.169.0, Gemini CLI 0.61.0, Pi 0.73.1, Copilot CLI
// 1.0.102, Qwen Code 0.24.4, Factory Droid 0.225.2,
// Cline 3.0.65, OpenCode 1.18.33), and a tool joins
// a list only when its code touches no file the person has: a tool that
// writes a memory file the client loads into every later session (Gemini
// CLI's former save_memory, ~/.gemini/GEMINI.md), reads a skill or
// plan file (Claude's Skill, Gemini's exit_plan_mode), creates a worktree,
// persists a schedule into the project (Claude's Cron tools), runs a
// script (Monitor, Workflow, REPL) or reaches MCP resources is not one:
// pathgrant cannot map it, and it is refused unless the device policy
// says unmapped_tools = "ask-client" (unmapped.go).
//
// Nor is a web fetch made from the client's own process. The client runs
// unconfined, outside the network namespace whose only way out is
// pathgrant's proxy (a command's curl runs inside it), so its fetch
// reaches the person's loopback and private addresses, where local
// services answer: `opencode serve`, unauthenticated by default, answers
// GET /file/content?path=… with any file. A URL filter in the hook would
// not hold (a name such as 127.0.0.1.nip.io, a redirect, a name that
// resolves again differently), so such a fetch is kept off these lists
// unless the client's own code refuses those addresses at connection
// time, after redirects too, whatever its configuration.

// claudeNoFileTools are Claude Code's, with the older names it still
// accepts for some of them (Task for Agent, KillShell and KillBash for
// TaskStop, BashOutput for TaskOutput); a sub-agent asked to run in a git
// worktree is not one (makesWorktree). Codex's PreToolUse names Claude's
// Bash, so the Codex row has its own list. WebSearch runs at Anthropic's
// API. Not WebFetch: Claude Code fetches the page itself, with axios from
// its own process; it refuses only a host name without a dot (localhost,
// [::1]), upgrades http to https and follows a redirect only to the same
// host, so https://127.0.0.1:PORT/, https://10.0.0.1/ and a name that
// resolves to either are fetched; its one other gate asks
// api.anthropic.com's domain_info whether the host name may be fetched,
// a verdict on a site's name, not on the address it reaches, which the
// setting skipWebFetchPreflight turns off.
var claudeNoFileTools = []string{
	"WebSearch",
	"TodoWrite", "TaskCreate", "TaskGet", "TaskUpdate", "TaskList", "TaskOutput", "BashOutput",
	"TaskStop", "KillShell", "KillBash",
	"Agent", "Task",
	"ExitPlanMode", "EnterPlanMode", "AskUserQuestion",
	"ToolSearch", "StructuredOutput", "ReportFindings", "PushNotification",
}

// codexNoFileTools are Codex CLI's: its hosted web search, its plan, and
// its question to the person.
var codexNoFileTools = []string{"web_search", "update_plan", "request_user_input"}

// geminiNoFileTools are Gemini CLI's: its web search (run by the Gemini
// API), the to-do list, questions to the person, the chat's topic,
// entering plan mode, and a sub-agent reporting its result. Not web_fetch:
// when the Gemini API's URL fetch fails, and always under the setting
// directWebFetch, Gemini CLI fetches the page from its own process. Its
// connector refuses private addresses, redirects and DNS included, but
// only without a proxy: with HTTPS_PROXY or HTTP_PROXY set, every fetch
// goes through an EnvHttpProxyAgent that checks nothing, so a redirect to
// a host in NO_PROXY (localhost, 127.0.0.1, as usual) is fetched directly,
// and any other through the proxy, which, run on the person's machine (a
// local authenticating proxy), reaches its loopback too.
var geminiNoFileTools = []string{
	"google_web_search",
	"write_todos", "ask_user", "update_topic", "enter_plan_mode", "complete_task",
}

// copilotNoFileTools are GitHub Copilot CLI's: reading, stopping and
// listing the shells its bash tool started (whose commands ran through
// this hook), sub-agents and their messages, and its own documentation.
// Not its sql tools: SQLite's ATTACH opens any file.
var copilotNoFileTools = []string{
	"read_bash", "write_bash", "stop_bash", "list_bash",
	"task", "read_agent", "list_agents", "write_agent",
	"fetch_copilot_cli_documentation",
}

// qwenNoFileTools are Qwen Code's: web search (a search model at the
// configured DashScope endpoint), its to-do list, questions to the
// person, finding its deferred tools (a deferred tool called through
// tool_call reaches this hook under its own name), structured answers,
// its goal, entering plan mode, and sub-agents and their messages. Not
// web_fetch: Qwen Code fetches the page with fetch()
// from its own process and says so ("Supports both public and
// private/localhost URLs"): private and loopback hosts are only spared
// the upgrade to https.
var qwenNoFileTools = []string{
	"web_search", "todo_write", "ask_user_question", "tool_search", "structured_output",
	"get_goal", "update_goal", "enter_plan_mode", "agent", "list_agents", "send_message", "task_stop",
}

// droidNoFileTools are Factory Droid's: web search, its web fetch (FetchUrl
// posts the URL to the Factory API's /api/tools/get-url-contents, at
// api.factory.ai, and the page is fetched there), its to-do list, finding
// its deferred tools, a background task's output and its stop, and
// questions to the person. Not its Task: the images a sub-agent is given
// are read (droid.go), nor Skill, which reads skill files.
var droidNoFileTools = []string{"WebSearch", "FetchUrl", "TodoWrite", "ToolSearch", "TaskOutput", "TaskStop", "AskUser"}

// clineNoFileTools are Cline's: questions to the person, the end of a
// run, and a sub-agent, whose own tool calls come through this hook. Not
// fetch_web_content: Cline fetches each URL with fetch() from its own
// process, redirects followed, refusing only a scheme other than http and
// https.
var clineNoFileTools = []string{"ask_question", "submit_and_exit", "spawn_agent"}

// opencodeNoFileTools are OpenCode's: its web search (run by a search
// service), its to-do list, questions to the person, and the tool a
// malformed call is answered by. Not task: the sub-agent's own tool calls
// reach the plugin, but OpenCode reads each file its prompt @-mentions
// itself (opencode.go). Not webfetch: OpenCode fetches the page itself, from its
// own unconfined process, loopback included, where `opencode serve` (the
// server its editor extensions and web client talk to, unauthenticated by
// default) answers /file/content?path=… for any file; a command's curl
// runs confined instead. Not skill (it reads skill files), plan_exit (the
// plan file) nor execute (code that calls other tools).
var opencodeNoFileTools = []string{"websearch", "todowrite", "question", "invalid"}

// Pi's built-in tools (bash, read, write, edit, grep, find, ls) all touch
// files, and Cursor's hook events carry no tool of their own besides
// shell commands, file reads and MCP tools: their rows list none.

// touchesNoFile reports whether tool is one of client's tools known to
// touch no local file.
func touchesNoFile(client, tool string) bool {
	c, err := LookupClient(client)
	return err == nil && slices.Contains(c.NoFileTools, tool)
}
