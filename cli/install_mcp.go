package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"pathgrant/appdirs"
	"pathgrant/hooks/clientconfig"
)

// installMCPUsage is install-mcp's usage line, naming every client the
// client table gives an MCP configuration (a list written out by hand
// fell behind the table).
func installMCPUsage() string {
	return "usage: pathgrant install-mcp " + mcpClients() + " [--project DIR] [--uninstall] [--socket PATH]"
}

// mcpClients is the clients install-mcp registers the bridge with, as
// "a|b|c".
func mcpClients() string {
	var names []string
	for _, name := range clientconfig.Clients() {
		if c, err := clientconfig.LookupClient(name); err == nil && c.InstallMCP != nil {
			names = append(names, name)
		}
	}
	return strings.Join(names, "|")
}

// runInstallMCP implements `pathgrant install-mcp`: it registers this
// binary's bridge (`pathgrant mcp`) as the MCP server named pathgrant in
// one client's MCP configuration, keeping everything else and saving the
// previous file as a timestamped backup. It is idempotent; --uninstall
// removes exactly that server and, when nothing else changed since, puts
// the previous file back byte for byte. Exit 0 done, 1 failure, 2 usage.
func runInstallMCP(args []string, stdout, stderr io.Writer) int {
	a, err := parseInstallMCPArgs(args)
	if err != nil {
		return parseFailed("install-mcp", installMCPUsage(), err, stdout, stderr)
	}
	exe, err := os.Executable()
	if err != nil {
		return fail(stderr, "install-mcp", fmt.Errorf("find this binary: %w", err))
	}
	msg, err := installMCP(a, exe, os.Getenv)
	if err != nil {
		return fail(stderr, "install-mcp", err)
	}
	fmt.Fprintln(stdout, msg)
	return exitOK
}

func parseInstallMCPArgs(args []string) (installArgs, error) {
	var a installArgs
	c, err := parseInstallArgs(newFlags("install-mcp"), args, &a, installHelp{
		project:   "register in this project's MCP configuration instead of the user's",
		uninstall: "remove the pathgrant server",
		socket:    "daemon socket the bridge should use (default: the bridge's own default)",
	})
	if err == nil && c.InstallMCP == nil {
		err = usagef("%s has no MCP configuration", c.Name)
	}
	return a, err
}

// installMCP registers (or removes) the bridge exe for one client, in the
// MCP configuration the client table names for it.
func installMCP(a installArgs, exe string, getenv appdirs.Getenv) (string, error) {
	client, home, project, err := a.target(getenv)
	if err != nil {
		return "", err
	}
	argv, err := bridgeArgv(exe, a.socket)
	if err != nil {
		return "", err
	}
	path := client.MCPPath(getenv, home, project)
	if path == "" {
		return "", fmt.Errorf("%s has no MCP configuration of a project's own: run it without --project", a.client)
	}
	changed, backup, err := client.InstallMCP(path, argv, a.uninstall)
	if err != nil {
		return "", err
	}
	return installReport("MCP server", "registered", a.client, path, a.uninstall, changed, backup), nil
}

// bridgeArgv is the server's command: this binary's absolute path, mcp,
// and --socket when one was given.
func bridgeArgv(exe, socket string) ([]string, error) {
	exe, err := filepath.Abs(exe)
	if err != nil {
		return nil, fmt.Errorf("this binary %s: %w", exe, err)
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	return withSocket([]string{exe, "mcp"}, socket)
}
