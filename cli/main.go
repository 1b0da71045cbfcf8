// Package cli holds pathgrant's subcommands, one file each, and the
// dispatch that main.go calls.
package cli

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// command is one subcommand: it gets its arguments and streams and returns
// the process exit status.
type command struct {
	run     func(args []string, stdout, stderr io.Writer) int
	summary string
}

// commands is the command table; stdin is where a command that asks the
// user (approve) reads the answer.
func commands(stdin io.Reader) map[string]command {
	return map[string]command{
		"check":   {runCheck, "evaluate one access or shell command offline against a policy file"},
		"grants":  {runGrants, "list or revoke grants in the store"},
		"audit":   {runAudit, "print the audit log"},
		"serve":   {runServe, "run the daemon (--headless: without a display, approvals from the CLI)"},
		"pending": {runPending, "list the approval requests waiting in the daemon"},
		"approve": {func(args []string, stdout, stderr io.Writer) int {
			return runApprove(args, stdout, stderr, newConfirmer(stdin, stderr))
		}, "approve a pending request: --scope once|session|device"},
		"deny":            {runDeny, "deny a pending request (--session: and the same access for the rest of that session)"},
		"denials":         {runDenials, "list or lift the remembered denials (deny --session)"},
		"doctor":          {runDoctor, "check this setup and say how to fix what is missing (--json for a bug report)"},
		"exec":            {runExec, "run a command confined by Landlock to the session's permissions"},
		"app":             {runApp, appSummary},
		"settings":        {runSettings, "open the grants, audit and pending window of the running app"},
		"install-desktop": {runInstallDesktop, installDesktopSummary},
		"install-hooks":   {runInstallHooks, "register the pathgrant hook with an agent client: claude|cline|codex|copilot|cursor|droid|gemini|pi|qwen"},
		"install-mcp":     {runInstallMCP, "register the MCP bridge (pathgrant mcp) with an agent client: " + mcpClients()},
		"mcp":             {runMCP, "the MCP bridge agent clients launch: pathgrant's tools, checked and run by the daemon"},
		"run":             {runLauncher, "run an agent or tool runner in a new session: pathgrant run [--workspace DIR]... -- CMD"},
		"version":         {runVersion, "print the version, the commit and how this binary was built"},
	}
}

// Main runs the pathgrant command line with args (without the program
// name) and returns the process exit status.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cmds := commands(stdin)
	if len(args) > 0 && (args[0] == "help" || args[0] == "-h" || args[0] == "--help") {
		usage(stdout, cmds)
		return exitOK
	}
	args, err := globalArgs(args)
	if err != nil {
		fmt.Fprintf(stderr, "pathgrant: %v\n", err)
		return exitUsage
	}
	c, ok := cmds[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "pathgrant: unknown command %q (run 'pathgrant help')\n", args[0])
		return exitUsage
	}
	return c.run(args[1:], stdout, stderr)
}

// globalArgs turns the global flags before the command (`pathgrant
// --socket X pending`, `pathgrant --socket X` for the app) into that
// command's own flags, so that both spellings mean the same. It returns
// the command's name and its arguments; no command is the app.
func globalArgs(args []string) ([]string, error) {
	var socket []string
	for len(args) > 0 {
		name, value, hasValue := strings.Cut(strings.TrimLeft(args[0], "-"), "=")
		if !strings.HasPrefix(args[0], "-") || name != "socket" {
			break
		}
		switch {
		case hasValue:
			args = args[1:]
		case len(args) > 1:
			value, args = args[1], args[2:]
		default:
			return nil, fmt.Errorf("flag needs an argument: %s", args[0])
		}
		if value == "" {
			return nil, fmt.Errorf("--socket: empty path")
		}
		socket = []string{"--socket", value}
	}
	if len(args) == 0 {
		args = []string{"app"}
	}
	if socket == nil {
		return args, nil
	}
	if !takesSocket(args[0]) {
		return nil, fmt.Errorf("--socket does not apply to %q, which never reaches the daemon", args[0])
	}
	return append(append([]string{args[0]}, socket...), args[1:]...), nil
}

// takesSocket reports whether command reaches the daemon and so has its
// own --socket; check (offline), install-desktop and version do not.
func takesSocket(command string) bool {
	return command != "check" && command != "install-desktop" && command != "version"
}

// usage lists the commands, their summaries in one column after the
// longest name.
func usage(w io.Writer, cmds map[string]command) {
	names := make([]string, 0, len(cmds))
	width := 0
	for n := range cmds {
		names = append(names, n)
		width = max(width, len(n))
	}
	slices.Sort(names)
	fmt.Fprintln(w, "usage: pathgrant [--socket PATH] COMMAND [ARGS]\n\ncommands:")
	for _, n := range names {
		fmt.Fprintf(w, "  %s%s  %s\n", n, strings.Repeat(" ", width-len(n)), cmds[n].summary)
	}
}
