package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"syscall"
	"time"

	"pathgrant/apiclient"
	"pathgrant/appdirs"
	"pathgrant/guard"
	"pathgrant/sandbox/frontend"
	"pathgrant/sandbox/kernel"
	"pathgrant/sandbox/launch"
	"pathgrant/wire"
)

const execUsageText = "usage: pathgrant exec [--session ID] [--socket PATH] [--wait DURATION] [--verbose] [--allow-unconfined] [--] COMMAND [ARG]..."

// Exit statuses of `pathgrant exec` itself; once the command runs, its
// status is the command's.
const (
	execRefused  = 126 // not run: no sandbox, no policy, or the sandbox failed
	execNotFound = 127 // no such command
)

// daemonSlack is how long exec gives the daemon beyond --wait.
const daemonSlack = 10 * time.Second

type execArgs struct {
	session, socket, token   string
	capability               string // $PATHGRANT_CAP: a hook's rewritten command
	wait                     time.Duration
	verbose, allowUnconfined bool
	argv                     []string
}

// execDeps are what exec takes from the system: tests replace the exec
// of an unconfined command (--allow-unconfined on a machine that cannot
// confine).
type execDeps struct {
	getenv  func(string) string
	environ func() []string
	execve  func(path string, argv, env []string) error
}

func systemExecDeps() execDeps {
	return execDeps{getenv: os.Getenv, environ: os.Environ, execve: syscall.Exec}
}

// runExec implements `pathgrant exec`: it runs the command confined by
// Landlock to the session's effective permissions, and never runs it
// unconfined unless --allow-unconfined is given and Landlock is missing.
func runExec(args []string, stdout, stderr io.Writer) int {
	return runExecWith(args, stdout, stderr, systemExecDeps())
}

// runExecWith is runExec with the system dependencies given.
func runExecWith(args []string, stdout, stderr io.Writer, d execDeps) int {
	if len(args) == 2 && args[0] == innerFlag {
		return runInner(args[1], stderr)
	}
	if len(args) == 3 && args[0] == connectFlag {
		return launch.Connect(launch.ProxyPort, args[1], args[2], os.Stdin, stdout, stderr)
	}
	a, err := parseExecArgs(args, d.getenv)
	if err != nil {
		return parseFailed("exec", execUsageText, err, stdout, stderr)
	}
	r := &execRun{execArgs: a, deps: d, stderr: stderr, log: execLogger(stderr, a.verbose)}
	return r.run()
}

// parseExecArgs reads the flags up to the command (or `--`); the session
// and token default to the environment, the socket to the daemon's.
func parseExecArgs(args []string, getenv func(string) string) (execArgs, error) {
	a := execArgs{token: getenv(appdirs.TokenEnv), capability: getenv(wire.CapEnv)}
	fs := newFlags("exec")
	fs.StringVar(&a.session, "session", getenv(appdirs.SessionEnv), "session id (default $"+appdirs.SessionEnv+")")
	fs.StringVar(&a.socket, "socket", "", socketHelp)
	fs.DurationVar(&a.wait, "wait", 0, "how long to wait for an approval the command needs")
	fs.BoolVar(&a.verbose, "verbose", false, "say what the guard thinks and which rules apply")
	fs.BoolVar(&a.allowUnconfined, "allow-unconfined", false, "run without kernel enforcement when Landlock is unavailable")
	if err := parseLeading(fs, args); err != nil {
		return a, err
	}
	a.argv = fs.Args()
	switch {
	case len(a.argv) == 0:
		return a, usagef("no command given")
	case a.session == "" && a.capability == "":
		return a, usagef("no session: give --session or set %s (or %s, which a hook's rewritten command carries)", appdirs.SessionEnv, wire.CapEnv)
	case a.wait < 0:
		return a, usagef("--wait must not be negative")
	}
	a.socket = appdirs.SocketOr(a.socket, getenv)
	return a, nil
}

// execLogger logs warnings to w; with --verbose also the rules (debug).
func execLogger(w io.Writer, verbose bool) *slog.Logger {
	level := slog.LevelWarn
	if verbose {
		level = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level}))
}

// execRun is one `pathgrant exec`.
type execRun struct {
	execArgs
	deps   execDeps
	stderr io.Writer
	log    *slog.Logger
}

// refuse says why the command was not run.
func (r *execRun) refuse(code int, format string, args ...any) int {
	fmt.Fprintf(r.stderr, "pathgrant exec: %s\n", oneLine(fmt.Sprintf(format, args...)))
	return code
}

// run runs the command through the daemon's one door: a hook's
// rewritten command presents its capability; with a session, the
// pre-flight check asks for a capability bound to the command's text
// whatever the guard answers (the kernel confines it either way), and
// the same front end runs it (frontend.Exec). Unconfined only where the
// daemon says so: the device policy turns confinement off, or the
// machine cannot confine and --allow-unconfined is given for a command
// the guard allows.
func (r *execRun) run() int {
	if r.capability != "" { // a hook's rewritten command: the daemon prepares its sandbox
		return frontend.Exec(r.socket, r.capability, r.argv, r.stderr)
	}
	path, err := exec.LookPath(r.argv[0])
	if err != nil {
		return r.refuse(execNotFound, "%v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), r.wait+daemonSlack)
	defer cancel()
	c := apiclient.ForSession(r.socket, r.session, r.token)
	ans, err := r.preflight(ctx, c)
	c.CloseIdle()
	if err != nil {
		return r.refuse(execRefused, "%v: not running %s", err, r.argv[0])
	}
	if ans.Exec != nil && ans.Exec.Capability != "" {
		return frontend.Exec(r.socket, ans.Exec.Capability, r.argv, r.stderr)
	}
	level := wire.LevelNone
	if ans.Exec != nil {
		level = ans.Exec.Level
	}
	if level == wire.LevelNone && r.allowUnconfined {
		return r.runUnconfined(path, ans, fmt.Errorf("%w: this machine cannot confine commands (--allow-unconfined)", kernel.ErrUnavailable))
	}
	return r.refuse(execRefused, "%v: the daemon reports confinement %q: refusing to run %s unconfined (--allow-unconfined runs it without kernel enforcement)",
		kernel.ErrUnavailable, level, r.argv[0])
}

// preflight asks the guard about the command, and for the capability
// that runs it. The guard's answer does not decide whether the command
// runs (the kernel confines it either way), but an eligible denial queues
// the same approval request a hook would, and with --wait the user's
// decision is awaited. A daemon that does not answer, or refuses the
// session, fails exec.
func (r *execRun) preflight(ctx context.Context, c *apiclient.Client) (wire.Answer, error) {
	text := launch.CommandText(r.argv)
	tool := "exec"
	if r.allowUnconfined {
		tool = "exec --allow-unconfined"
	}
	ans, err := c.Check(ctx, wire.CheckRequest{Command: text, ExecCommand: text, ExecAnyway: true, Tool: tool,
		WaitMS: int(r.wait / time.Millisecond)})
	if err != nil {
		return ans, fmt.Errorf("pre-flight check: %w", err)
	}
	switch {
	case ans.Decision == guard.Allow:
		r.log.Debug("guard allows the command", "grants", ans.Grants)
	case ans.Pending != "" && ans.Eligible:
		fmt.Fprintf(r.stderr, "pathgrant exec: %s %s needs approval (request %s): approve it, then run the command again\n",
			ans.Op, ans.Path, ans.Pending)
	case r.verbose:
		fmt.Fprintf(r.stderr, "pathgrant exec: guard: %s\n", oneLine(ans.Reason))
	}
	return ans, nil
}

// runUnconfined runs the command without Landlock (--allow-unconfined on
// a machine that cannot confine): the guard's verdict is then the only
// enforcement, so a denial refuses.
func (r *execRun) runUnconfined(path string, ans wire.Answer, why error) int {
	if ans.Decision != guard.Allow {
		return r.refuse(execRefused, "no kernel enforcement and the guard denies %s: %s", r.argv[0], ans.Reason)
	}
	r.log.Warn("pathgrant exec: running the command WITHOUT kernel enforcement",
		"session", r.session, "command", r.argv[0], "reason", why.Error())
	if err := r.deps.execve(path, r.argv, r.deps.environ()); err != nil {
		return r.refuse(execRefused, "exec %s: %v", path, err)
	}
	return 0 // only a test's execve returns without error
}

// innerFlag runs exec's inner step: `pathgrant exec --inner FD`, which
// bubblewrap starts inside the view. It reads the job (rules and command)
// from FD, restricts itself with Landlock and execs the command.
const innerFlag = "--inner"

// connectFlag runs the connect helper inside a confined command's network
// namespace: `pathgrant exec --connect HOST PORT`, git's ssh's
// ProxyCommand where no pathgrant-confine is installed (launch.Connect).
const connectFlag = "--connect"

// runInner is `pathgrant exec --inner FD`: the inner step where no
// pathgrant-confine is installed. It never returns when the command runs.
func runInner(fdArg string, stderr io.Writer) int {
	return kernel.RunInner(fdArg, os.Environ(), stderr)
}
