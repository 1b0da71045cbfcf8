package hooks

import "slices"

// The tools of each client known to touch no local file of the person's:
// web fetch and web search (the page or the search runs elsewhere; Claude
// Code's WebFetch cannot reach localhost, and none of them takes a
// file:// address), to-do and task lists and plans the client keeps in
// its own state, questions to the person, sub-agents whose own tool calls
// come through this hook, and the client's bookkeeping (its tool search,
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

// claudeNoFileTools are Claude Code's, with the older names it still
// accepts for some of them (Task for Agent, KillShell and KillBash for
// TaskStop, BashOutput for TaskOutput); a sub-agent asked to run in a git
// worktree is not one (makesWorktree). Codex's PreToolUse names Claude's
// Bash, so the Codex row has its own list.
var claudeNoFileTools = []string{
	"WebFetch", "WebSearch",
	"TodoWrite", "TaskCreate", "TaskGet", "TaskUpdate", "TaskList", "TaskOutput", "BashOutput",
	"TaskStop", "KillShell", "KillBash",
	"Agent", "Task",
	"ExitPlanMode", "EnterPlanMode", "AskUserQuestion",
	"ToolSearch", "StructuredOutput", "ReportFindings", "PushNotification",
}

// codexNoFileTools are Codex CLI's: its hosted web search, its plan, and
// its question to the person.
var codexNoFileTools = []string{"web_search", "update_plan", "request_user_input"}

// geminiNoFileTools are Gemini CLI's: its web search and fetch, the to-do
// list, questions to the person, the chat's topic, entering plan mode, and
// a sub-agent reporting its result.
var geminiNoFileTools = []string{
	"google_web_search", "web_fetch",
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

// qwenNoFileTools are Qwen Code's: web fetch and search, its to-do list,
// questions to the person, finding its deferred tools (a deferred tool
// called through tool_call reaches this hook under its own name),
// structured answers, its goal, entering plan mode, and sub-agents and
// their messages.
var qwenNoFileTools = []string{
	"web_fetch", "web_search", "todo_write", "ask_user_question", "tool_search", "structured_output",
	"get_goal", "update_goal", "enter_plan_mode", "agent", "list_agents", "send_message", "task_stop",
}

// droidNoFileTools are Factory Droid's: web search and fetch, its to-do
// list, finding its deferred tools, a background task's output and its
// stop, and questions to the person. Not its Task: the images a
// sub-agent is given are read (droid.go), nor Skill, which reads skill
// files.
var droidNoFileTools = []string{"WebSearch", "FetchUrl", "TodoWrite", "ToolSearch", "TaskOutput", "TaskStop", "AskUser"}

// clineNoFileTools are Cline's: web fetch, questions to the person, the
// end of a run, and a sub-agent, whose own tool calls come through this
// hook.
var clineNoFileTools = []string{"fetch_web_content", "ask_question", "submit_and_exit", "spawn_agent"}

// opencodeNoFileTools are OpenCode's: its web search (run by a search
// service), its to-do list, questions to the person, sub-agents (whose
// own tool calls reach the plugin), and the tool a malformed call is
// answered by. Not webfetch: OpenCode fetches the page itself, from its
// own unconfined process, loopback included, where `opencode serve` (the
// server its editor extensions and web client talk to, unauthenticated by
// default) answers /file/content?path=… for any file; a command's curl
// runs confined instead. Not skill (it reads skill files), plan_exit (the
// plan file) nor execute (code that calls other tools).
var opencodeNoFileTools = []string{"websearch", "todowrite", "question", "task", "invalid"}

// Pi's built-in tools (bash, read, write, edit, grep, find, ls) all touch
// files, and Cursor's hook events carry no tool of their own besides
// shell commands, file reads and MCP tools: their rows list none.

// touchesNoFile reports whether tool is one of client's tools known to
// touch no local file.
func touchesNoFile(client, tool string) bool {
	c, err := LookupClient(client)
	return err == nil && slices.Contains(c.NoFileTools, tool)
}
