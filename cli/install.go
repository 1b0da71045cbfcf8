package cli

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"pathgrant/appdirs"
	"pathgrant/hooks/clientconfig"
)

// installArgs are what install-hooks and install-mcp both take: one
// client, and where and how to install into its configuration.
type installArgs struct {
	client, project, socket string
	uninstall               bool
}

// installHelp is each shared flag's help for one command.
type installHelp struct{ project, uninstall, socket string }

// parseInstallArgs adds the shared flags to fs, parses args into a and
// returns the one client they name.
func parseInstallArgs(fs *flag.FlagSet, args []string, a *installArgs, help installHelp) (clientconfig.Client, error) {
	fs.StringVar(&a.project, "project", "", help.project)
	fs.BoolVar(&a.uninstall, "uninstall", false, help.uninstall)
	fs.StringVar(&a.socket, "socket", "", help.socket)
	pos, err := parseFlags(fs, args)
	switch {
	case err != nil:
		return clientconfig.Client{}, err
	case len(pos) != 1:
		return clientconfig.Client{}, usagef("give exactly one client")
	}
	c, err := clientconfig.LookupClient(pos[0])
	if err != nil {
		return clientconfig.Client{}, usagef("%v", err)
	}
	a.client = pos[0]
	return c, nil
}

// target is the client, the home folder its user configuration is found
// from, and the --project folder ("" for the user's configuration).
func (a installArgs) target(getenv appdirs.Getenv) (clientconfig.Client, string, string, error) {
	client, err := clientconfig.LookupClient(a.client)
	if err != nil {
		return clientconfig.Client{}, "", "", err
	}
	home, err := appdirs.Home(getenv)
	if err != nil {
		return clientconfig.Client{}, "", "", err
	}
	project, err := projectDir(a.project)
	return client, home, project, err
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
