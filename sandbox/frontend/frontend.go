// Package frontend is the front end of a hook's rewritten shell command,
// `PATHGRANT_CAP=… pathgrant-confine exec -- bash -c '…'` (and `pathgrant
// exec` given a capability): it has the daemon prepare the sandbox
// (package launch), runs it, and has the daemon explain the refusals of a
// command that failed. It links the inner step (sandbox/kernel) for
// machines with Landlock alone; the hook, which links package launch for
// the wire names, does not.
package frontend

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"pathgrant/appdirs"
	"pathgrant/sandbox/kernel"
	"pathgrant/sandbox/launch"
	"pathgrant/wire"
)

// Usage is the front end's command line as pathgrant-confine takes it.
const Usage = "usage: pathgrant-confine exec [--] COMMAND [ARG]... (a command a pathgrant hook rewrote: $" + wire.CapEnv + " set)"

// Main is `pathgrant-confine exec [--] COMMAND [ARG]...`: Exec with the
// capability in $PATHGRANT_CAP and the daemon's socket ($PATHGRANT_SOCKET,
// else the default).
func Main(args []string, getenv appdirs.Getenv, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	cap := getenv(wire.CapEnv)
	switch {
	case len(args) == 0 || strings.HasPrefix(args[0], "-"):
		fmt.Fprintln(stderr, Usage)
		return 2
	case cap == "":
		fmt.Fprintf(stderr, "pathgrant-confine: no capability in $%s: it runs only the commands a pathgrant hook rewrote (use pathgrant exec)\n", wire.CapEnv)
		return 2
	}
	return Exec(appdirs.SocketOr("", getenv), cap, args, stderr)
}

// Exec runs argv as a hook rewrote it: the daemon on socket, given the
// exec capability cap, answers with the sandbox prepared, and the command
// runs in it as this process's child (Run). A captured stderr (an agent's
// tool) is scanned, so that a failed command's refused paths can be
// explained; a terminal is the command's stderr as it is. It returns the
// command's status, or its own when the command did not run; it never
// runs the command unconfined unless the device policy turns confinement
// off.
func Exec(socket, cap string, argv []string, stderr io.Writer) int {
	refuse := func(code int, format string, args ...any) int {
		fmt.Fprintf(stderr, "pathgrant exec: %s\n", fmt.Sprintf(format, args...))
		return code
	}
	path, err := LookPath(argv[0], os.Getenv("PATH"))
	if err != nil {
		return refuse(kernel.ExitNotFound, "%v", err)
	}
	exe, err := os.Executable()
	if err == nil {
		exe, err = filepath.EvalSymlinks(exe)
	}
	if err != nil {
		return refuse(kernel.ExitRefused, "find this binary for the sandbox: %v", err)
	}
	environ := os.Environ()
	p, err := Fetch(socket, cap, wire.ExecRequest{Path: path, Argv: argv, Exe: exe, Env: environ, Terminals: launch.Terminals()})
	if err != nil {
		return refuse(kernel.ExitRefused, "prepare the sandbox: %v: not running %s", err, argv[0])
	}
	c := Child{Prepared: p, Path: path, Argv: argv, Env: environ, Stdin: os.Stdin, Stdout: os.Stdout,
		Stderr: stderr, StraightStderr: !StderrCaptured(), ForwardSignals: true}
	if p.Hold != nil {
		c.Hold = holdAsker{socket: socket, ticket: p.Hold.Ticket, text: launch.CommandText(argv)}
	}
	if c.Net, err = OpenNet(socket, p, argv); err != nil {
		fmt.Fprintf(stderr, "pathgrant exec: no way out of the command's network namespace (%v): it reaches its own loopback only\n", err)
	}
	return RunExplained(socket, c)
}

// RunExplained runs c (Run) from a front end process and returns the
// status to exit with. Then it reports the end to the daemon on socket,
// presenting the report ticket: the daemon runs the check it owes after
// the command and says what it neutralised in the workspace, and for a
// command that failed having named refused paths, what to tell the agent
// about each. All of it goes to the stderr.
func RunExplained(socket string, c Child) int {
	res := Run(context.Background(), c)
	if res.Err != nil {
		fmt.Fprintf(c.Stderr, "pathgrant exec: run %s: %v\n", c.Argv[0], res.Err)
	}
	for _, l := range res.Notes() {
		fmt.Fprintln(c.Stderr, l)
	}
	var refused []string
	if !res.Succeeded() && res.Err == nil {
		refused = res.Refused
	}
	if c.Prepared.Ticket != "" {
		said, err := Explain(socket, c.Prepared, c.Argv, refused)
		if err != nil {
			fmt.Fprintf(c.Stderr, "pathgrant: could not report the command's end to the daemon (%v): it checks the workspace when this process is gone\n", err)
		}
		for _, l := range said {
			fmt.Fprintln(c.Stderr, l)
		}
	}
	if res.Err != nil {
		return kernel.ExitRefused
	}
	if res.Succeeded() {
		return 0
	}
	return ExitStatus(res.Status)
}

// LookPath finds a command's program, as an absolute path: a name with a
// slash made absolute, else the first executable file of that name in an
// absolute directory of path (a relative one would depend on where the
// command starts).
func LookPath(name, path string) (string, error) {
	if strings.Contains(name, "/") {
		abs, err := filepath.Abs(name)
		if err == nil {
			err = executable(abs)
		}
		if err != nil {
			return "", fmt.Errorf("%s: %w", name, err)
		}
		return abs, nil
	}
	for _, dir := range filepath.SplitList(path) {
		if p := filepath.Join(dir, name); filepath.IsAbs(dir) && executable(p) == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: command not found in $PATH", name)
}

var errNotExecutable = errors.New("not an executable file")

func executable(p string) error {
	fi, err := os.Stat(p)
	switch {
	case err != nil:
		return err
	case fi.IsDir() || fi.Mode().Perm()&0o111 == 0:
		return errNotExecutable
	}
	return nil
}
