package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"

	"pathgrant/appdirs"
	"pathgrant/ipc/hooks"
)

const installHooksUsageText = "usage: pathgrant install-hooks claude|codex|cursor|gemini|pi [--project DIR] [--uninstall] [--hook PATH] [--socket PATH]"

type installHooksArgs struct {
	client    string
	project   string
	uninstall bool
	hook      string
	socket    string
}

// runInstallHooks implements `pathgrant install-hooks`: it merges the
// pathgrant hook into one client's settings (keeping everything else,
// writing a timestamped backup of the previous file), is idempotent, and
// with --uninstall removes exactly the entries it adds. Exit 0 done, 1
// failure, 2 usage.
func runInstallHooks(args []string, stdout, stderr io.Writer) int {
	a, err := parseInstallHooksArgs(args)
	if err != nil {
		return parseFailed("install-hooks", installHooksUsageText, err, stdout, stderr)
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
	fs.StringVar(&a.project, "project", "", "install into this project's settings instead of the user's")
	fs.BoolVar(&a.uninstall, "uninstall", false, "remove the pathgrant hook")
	fs.StringVar(&a.hook, "hook", "", "the pathgrant-hook binary (default: next to this binary, else on $PATH)")
	fs.StringVar(&a.socket, "socket", "", "daemon socket the hook should use (default: the hook's own default)")
	pos, err := parseFlags(fs, args)
	switch {
	case err != nil:
		return a, err
	case len(pos) != 1:
		return a, usagef("give exactly one client")
	}
	if _, err := hooks.LookupClient(pos[0]); err != nil {
		return a, usagef("%v", err)
	}
	a.client = pos[0]
	return a, nil
}

// installHooks installs or removes the hook for one client, in the
// settings the client table names for it; getenv moves the client's folder
// (CLAUDE_CONFIG_DIR, CODEX_HOME, …).
func installHooks(a installHooksArgs, getenv appdirs.Getenv) (string, error) {
	client, err := hooks.LookupClient(a.client)
	if err != nil {
		return "", err
	}
	home, err := appdirs.Home(getenv)
	if err != nil {
		return "", err
	}
	project, err := projectDir(a.project)
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
	if project != "" && !a.uninstall && client.ProjectNote != "" {
		msg += "\n" + client.ProjectNote
	}
	return msg, nil
}

// projectDir is --project made absolute; it must be a folder.
func projectDir(flagValue string) (string, error) {
	if flagValue == "" {
		return "", nil
	}
	project, err := filepath.Abs(flagValue)
	if err != nil {
		return "", fmt.Errorf("project %s: %w", flagValue, err)
	}
	if fi, err := os.Stat(project); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("project %s is not a folder", project)
	}
	return project, nil
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

// withSocket adds `--socket ABS` to a registered command when the person
// named a socket: the command runs later, from another working directory.
func withSocket(argv []string, socket string) ([]string, error) {
	if socket == "" {
		return argv, nil
	}
	sock, err := filepath.Abs(socket)
	if err != nil {
		return nil, fmt.Errorf("socket %s: %w", socket, err)
	}
	return append(argv, "--socket", sock), nil
}

// installReport says what installing (or uninstalling) pathgrant's thing,
// "hook" or "MCP server", did to one client's file; verb is what
// installing it is called ("installed", "registered").
func installReport(thing, verb, client, path string, uninstall, changed bool, backup string) string {
	var msg string
	switch {
	case uninstall && changed:
		msg = fmt.Sprintf("removed the pathgrant %s for %s from %s", thing, client, path)
	case uninstall:
		return fmt.Sprintf("no pathgrant %s for %s in %s: nothing to remove", thing, client, path)
	case changed:
		msg = fmt.Sprintf("%s the pathgrant %s for %s in %s", verb, thing, client, path)
	default:
		return fmt.Sprintf("the pathgrant %s for %s is already %s in %s", thing, client, verb, path)
	}
	if backup != "" {
		msg += " (previous file saved as " + backup + ")"
	}
	return msg
}

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
