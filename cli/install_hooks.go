package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"pathgrant/appdirs"
	"pathgrant/devicepolicy"
	"pathgrant/hooks/clientconfig"
)

// installHooksUsage is install-hooks' usage line, naming every client of
// the client table.
func installHooksUsage() string {
	return "usage: pathgrant install-hooks " + strings.Join(clientconfig.Clients(), "|") +
		" [--project DIR] [--uninstall] [--hook PATH] [--socket PATH]"
}

type installHooksArgs struct {
	installArgs
	hook string
}

// runInstallHooks implements `pathgrant install-hooks`: it merges the
// pathgrant hook into one client's settings (keeping everything else,
// writing a timestamped backup of the previous file), is idempotent, and
// with --uninstall removes exactly the entries it adds. Exit 0 done, 1
// failure, 2 usage.
func runInstallHooks(args []string, stdout, stderr io.Writer) int {
	a, err := parseInstallHooksArgs(args)
	if err != nil {
		return parseFailed("install-hooks", installHooksUsage(), err, stdout, stderr)
	}
	msg, err := installHooks(a, os.Getenv)
	if err != nil {
		return fail(stderr, "install-hooks", err)
	}
	fmt.Fprintln(stdout, msg)
	return exitOK
}

func parseInstallHooksArgs(args []string) (installHooksArgs, error) {
	var a installHooksArgs
	fs := newFlags("install-hooks")
	fs.StringVar(&a.hook, "hook", "", "the pathgrant-hook binary (default: next to this binary, else on $PATH)")
	_, err := parseInstallArgs(fs, args, &a.installArgs, installHelp{
		project:   "install into this project's settings instead of the user's",
		uninstall: "remove the pathgrant hook",
		socket:    "daemon socket the hook should use (default: the hook's own default)",
	})
	return a, err
}

// installHooks installs or removes the hook for one client, in the
// settings the client table names for it; getenv moves the client's folder
// (CLAUDE_CONFIG_DIR, CODEX_HOME, …).
func installHooks(a installHooksArgs, getenv appdirs.Getenv) (string, error) {
	client, home, project, err := a.target(getenv)
	if err != nil {
		return "", err
	}
	argv, err := hookArgv(a)
	if err != nil {
		return "", err
	}
	path := client.SettingsPath(getenv, home, project)
	changed, backup, err := client.Install(path, argv, a.uninstall)
	if err != nil {
		return "", err
	}
	msg := installReport("hook", "installed", a.client, path, a.uninstall, changed, backup)
	if a.uninstall && !changed {
		return msg, nil
	}
	added, next := hooksChanged(client, a.uninstall, changed)
	lines := []string{msg, added}
	if !a.uninstall && !client.NoOwnTools {
		lines = append(lines, unmappedLine(client, getenv, filepath.Join(devicepolicy.Dir(getenv, home), devicepolicy.TOMLName)))
	}
	lines = append(lines, next)
	if project != "" && !a.uninstall && client.ProjectNote != "" {
		lines = append(lines, client.ProjectNote)
	}
	return strings.Join(lines, "\n"), nil
}

// hooksChanged says which hooks the file now has (or no longer has) and
// what the person does next: a client reads its hooks when it starts, so
// one already running goes on without them until it is restarted.
func hooksChanged(client clientconfig.Client, uninstall, changed bool) (hooksLine, next string) {
	switch {
	case uninstall:
		return "hooks removed: " + client.HookEvents, "next: " + client.Reload + " so it stops running the hook"
	case changed:
		return "hooks added: " + client.HookEvents, "next: " + client.Reload + " so it loads the hook"
	}
	return "hooks: " + client.HookEvents,
		"next: nothing changed; if " + client.Title + " was started before the hook was installed, " + client.Reload + " so it loads the hook"
}

// unmappedLine says what the hook now does with the client's tools that
// are not file accesses, as the device policy at policyFile says: the one
// change a person notices that is not a prompt.
func unmappedLine(client clientconfig.Client, getenv appdirs.Getenv, policyFile string) string {
	p, err := devicepolicy.Read(getenv)
	noFile := ""
	if len(client.NoFileTools) > 0 {
		noFile = "; those that touch no local file, such as " + client.NoFileTools[0] + ", are left to " + client.Title
	}
	switch {
	case err != nil:
		return "the device policy is refused (a running daemon keeps the last good one, a new one does not start) until it is fixed: " + err.Error()
	case client.NoOwnFlow:
		return "tools pathgrant cannot map to files are blocked: " + client.Title + " has no permission flow of its own to leave them to"
	case p.UnmappedTools == devicepolicy.AskClient:
		return "tools pathgrant cannot map to files are left to " + client.Title + "'s own permission flow (unmapped_tools = \"ask-client\" in " +
			policyFile + ")" + noFile
	}
	return "tools pathgrant cannot map to files are denied (unmapped_tools = \"ask-client\" in " + policyFile +
		" leaves them to " + client.Title + ")" + noFile
}

// hookArgv is the hook command to register: the binary, the client, and
// --socket when one was given. Uninstalling needs only the client.
func hookArgv(a installHooksArgs) ([]string, error) {
	argv := []string{"", a.client}
	if a.uninstall {
		return argv, nil
	}
	var err error
	if argv[0], err = findHookBinary(a.hook); err != nil {
		return nil, err
	}
	return withSocket(argv, a.socket)
}

// installReport says what installing (or uninstalling) pathgrant's thing,
// "hook" or "MCP server", did to one client's file; verb is what

// findHookBinary returns the absolute path of pathgrant-hook: the flag's,
// else the one next to this binary, else the one on $PATH.
func findHookBinary(flagValue string) (string, error) {
	candidates := []string{}
	if flagValue != "" {
		candidates = append(candidates, flagValue)
	} else {
		if exe, err := os.Executable(); err == nil {
			candidates = append(candidates, filepath.Join(filepath.Dir(exe), "pathgrant-hook"))
		}
		if p, err := exec.LookPath("pathgrant-hook"); err == nil {
			candidates = append(candidates, p)
		}
	}
	for _, c := range candidates {
		abs, err := filepath.Abs(c)
		if err != nil {
			continue
		}
		if fi, err := os.Stat(abs); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return abs, nil
		}
	}
	if flagValue != "" {
		return "", fmt.Errorf("%s is not an executable file", flagValue)
	}
	return "", errors.New("cannot find pathgrant-hook next to this binary or on $PATH (build it with 'CGO_ENABLED=0 go build ./cmd/pathgrant-hook', or give --hook)")
}
