package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"time"

	"pathgrant/appdirs"
	"pathgrant/guard"
	"pathgrant/ipc"
	"pathgrant/sandbox"
	"pathgrant/sandbox/kernel"
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
	wait                     time.Duration
	verbose, allowUnconfined bool
	argv                     []string
}

// execDeps are what exec takes from the system: tests replace the Landlock
// probe and the unconfined exec.
type execDeps struct {
	getenv    func(string) string
	environ   func() []string
	probe     kernel.Probe
	execve    func(path string, argv, env []string) error // used only unconfined
	terminals func() []string
}

func systemExecDeps() execDeps {
	return execDeps{getenv: os.Getenv, environ: os.Environ, probe: kernel.ABI, execve: syscall.Exec,
		terminals: sandbox.Terminals}
}

// runExec implements `pathgrant exec`: it runs the command confined by
// Landlock to the session's effective permissions, and never runs it
// unconfined unless --allow-unconfined is given and Landlock is missing.
func runExec(args []string, stdout, stderr io.Writer) int {
	return runExecWith(args, stdout, stderr, systemExecDeps())
}

// runExecWith is runExec with the system dependencies given.
func runExecWith(args []string, stdout, stderr io.Writer, d execDeps) int {
	a, err := parseExecArgs(args, d.getenv)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprintln(stdout, execUsageText)
		return exitOK
	case err != nil:
		fmt.Fprintf(stderr, "pathgrant exec: %s\n%s\n", oneLine(err.Error()), execUsageText)
		return exitUsage
	}
	r := &execRun{execArgs: a, deps: d, stderr: stderr, log: execLogger(stderr, a.verbose)}
	return r.run()
}

// parseExecArgs reads the flags up to the command (or `--`); the session
// and token default to the environment, the socket to the daemon's.
func parseExecArgs(args []string, getenv func(string) string) (execArgs, error) {
	a := execArgs{token: getenv(appdirs.TokenEnv)}
	fs := newFlags("exec")
	fs.StringVar(&a.session, "session", getenv(appdirs.SessionEnv), "session id (default $"+appdirs.SessionEnv+")")
	fs.StringVar(&a.socket, "socket", "", socketHelp)
	fs.DurationVar(&a.wait, "wait", 0, "how long to wait for an approval the command needs")
	fs.BoolVar(&a.verbose, "verbose", false, "say what the guard thinks and which rules apply")
	fs.BoolVar(&a.allowUnconfined, "allow-unconfined", false, "run without kernel enforcement when Landlock is unavailable")
	if err := fs.Parse(args); err != nil {
		return a, err
	}
	a.argv = fs.Args()
	switch {
	case len(a.argv) == 0:
		return a, errors.New("no command given")
	case a.session == "":
		return a, errors.New("no session: give --session or set " + appdirs.SessionEnv)
	case a.wait < 0:
		return a, errors.New("--wait must not be negative")
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

// run checks for Landlock, resolves the command, asks the daemon, and
// execs the command confined (or, with --allow-unconfined and no Landlock,
// unconfined). It returns only when the command was not run.
func (r *execRun) run() int {
	_, landlockErr := kernel.Available(r.deps.probe)
	if landlockErr != nil && !r.allowUnconfined {
		return r.refuse(execRefused, "%v: refusing to run %s unconfined (--allow-unconfined runs it without kernel enforcement)",
			landlockErr, r.argv[0])
	}
	path, err := exec.LookPath(r.argv[0])
	if err != nil {
		return r.refuse(execNotFound, "%v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), r.wait+daemonSlack)
	defer cancel()
	c := &ipc.Client{Socket: r.socket, Session: r.session, Token: r.token}
	defer c.CloseIdle()
	ans, err := r.preflight(ctx, c, landlockErr != nil)
	if err != nil {
		return r.refuse(execRefused, "%v: not running %s", err, r.argv[0])
	}
	if landlockErr != nil {
		return r.runUnconfined(path, ans, landlockErr)
	}
	rs, tmp, err := r.ruleset(ctx, c, ans)
	if err != nil {
		return r.refuse(execRefused, "%v: not running %s", err, r.argv[0])
	}
	c.CloseIdle()
	err = rs.Exec(path, r.argv, r.env(tmp))
	return r.refuse(execRefused, "%v", err)
}

// preflight asks the guard about the command. Its answer does not decide
// whether the command runs (the kernel confines it either way), but an
// eligible denial queues the same approval request a hook would, and with
// --wait the user's decision is awaited. A daemon that does not answer,
// or refuses the session, fails exec.
func (r *execRun) preflight(ctx context.Context, c *ipc.Client, unconfined bool) (ipc.Answer, error) {
	tool := "exec"
	if unconfined {
		tool = "exec --allow-unconfined"
	}
	ans, err := c.Check(ctx, ipc.CheckRequest{Command: sandbox.CommandText(r.argv), Tool: tool,
		WaitMS: int(r.wait / time.Millisecond)})
	var ae *ipc.APIError
	if errors.As(err, &ae) && ae.Status == 400 {
		// The guard could not judge the text; the kernel still confines it.
		return ipc.Answer{Decision: guard.Deny, Reason: ae.Msg}, nil
	}
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
// a kernel without it): the guard's verdict is then the only enforcement,
// so a denial refuses.
func (r *execRun) runUnconfined(path string, ans ipc.Answer, why error) int {
	if ans.Decision != guard.Allow {
		return r.refuse(execRefused, "no kernel enforcement and the guard denies %s: %s", r.argv[0], ans.Reason)
	}
	r.log.Warn("pathgrant exec: running the command WITHOUT kernel enforcement (--allow-unconfined)",
		"session", r.session, "command", r.argv[0], "reason", why.Error())
	if err := r.deps.execve(path, r.argv, r.deps.environ()); err != nil {
		return r.refuse(execRefused, "exec %s: %v", path, err)
	}
	return 0 // only a test's execve returns without error
}

// ruleset fetches the session's effective permissions now (after the
// pre-flight, so a grant approved while it waited is included) and builds
// the kernel ruleset from them.
// It also returns the session's private tmp dir.
func (r *execRun) ruleset(ctx context.Context, c *ipc.Client, ans ipc.Answer) (*kernel.Ruleset, string, error) {
	pol, err := c.Policy(ctx)
	if err != nil {
		return nil, "", fmt.Errorf("session policy: %w", err)
	}
	used, err := usedGrants(ctx, c, pol, ans)
	if err != nil {
		return nil, "", err
	}
	tmp, err := sandbox.SessionTmpDir(sandbox.TmpBase(r.deps.getenv), pol.Session)
	if err != nil {
		return nil, "", err
	}
	rules, err := sandbox.Build(sandbox.Input{Policy: pol, Used: used, TmpDir: tmp,
		Terminals: r.deps.terminals(), System: sandbox.SystemRules()}, sandbox.OSFS{})
	if err != nil {
		return nil, "", err
	}
	rs, err := kernel.NewRuleset(rules)
	if err != nil {
		return nil, "", err
	}
	r.report(rs, tmp)
	return rs, tmp, nil
}

// usedGrants returns the scopes of the grants that allowed the pre-flight
// check and are no longer in the policy: a once grant is consumed by that
// very check, yet it was approved for this command.
func usedGrants(ctx context.Context, c *ipc.Client, pol ipc.Policy, ans ipc.Answer) ([]guard.Scope, error) {
	if ans.Decision != guard.Allow || len(ans.Grants) == 0 {
		return nil, nil
	}
	gs, err := c.Grants(ctx, pol.Session, true)
	if err != nil {
		return nil, fmt.Errorf("grants used by the check: %w", err)
	}
	var out []guard.Scope
	for _, g := range gs {
		sc := guard.Scope{Op: g.Op, Path: g.Path, Kind: g.Kind}
		if slices.Contains(ans.Grants, g.ID) && !slices.Contains(pol.Grants, sc) {
			out = append(out, sc)
		}
	}
	return out, nil
}

// report logs (at debug, shown with --verbose) the rules in force.
func (r *execRun) report(rs *kernel.Ruleset, tmp string) {
	r.log.Debug("sandbox", "session", r.session, "tmpdir", tmp, "rules", len(rs.Applied), "skipped", len(rs.Skipped))
	for _, a := range rs.Applied {
		r.log.Debug("rule", "path", a.Path, "access", a.Access.String(), "why", a.Why)
	}
	for _, s := range rs.Skipped {
		r.log.Debug("rule skipped", "path", s.Rule.Path, "why", s.Rule.Why, "err", s.Err)
	}
}

// env is this process's environment with TMPDIR set to the session's
// private tmp dir, the one temporary folder the command may write.
func (r *execRun) env(tmp string) []string {
	env := slices.DeleteFunc(r.deps.environ(), func(kv string) bool { return strings.HasPrefix(kv, "TMPDIR=") })
	return append(env, "TMPDIR="+tmp)
}
