package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"time"

	"pathgrant/appdirs"
	"pathgrant/devicepolicy"
	"pathgrant/guard"
	"pathgrant/ipc"
	"pathgrant/sandbox"
	"pathgrant/sandbox/frontend"
	"pathgrant/sandbox/kernel"
	"pathgrant/sandbox/launch"
	"pathgrant/sandbox/rules"
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

// execDeps are what exec takes from the system: tests replace the Landlock
// probe, the bubblewrap probe and the exec of an unconfined command or of
// bubblewrap.
type execDeps struct {
	getenv    func(string) string
	environ   func() []string
	probe     kernel.Probe
	bwrap     func() sandbox.Facts                        // Bwrap and UserNS only
	execve    func(path string, argv, env []string) error // unconfined, or bubblewrap
	terminals func() []string
	// captured reports whether exec's stderr is read by a program (not a
	// terminal): then bubblewrap runs as exec's child, so refusals can be
	// explained after the command fails. nil: never.
	captured func() bool
}

func systemExecDeps() execDeps {
	return execDeps{getenv: os.Getenv, environ: os.Environ, probe: kernel.ABI, bwrap: sandbox.ProbeFacts,
		execve: syscall.Exec, terminals: launch.Terminals, captured: frontend.StderrCaptured}
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
	a := execArgs{token: getenv(appdirs.TokenEnv), capability: getenv(launch.CapEnv)}
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
		return a, usagef("no session: give --session or set %s (or %s, which a hook's rewritten command carries)", appdirs.SessionEnv, launch.CapEnv)
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

// run reads the device policy, checks what confinement this machine
// offers, resolves the command, asks the daemon, and execs the command
// confined: in a bubblewrap view with Landlock inside it, or with Landlock
// alone where there is no bubblewrap. Unconfined only with
// --allow-unconfined and no Landlock, or when the device policy turns
// confinement off. It returns only when the command was not run.
func (r *execRun) run() int {
	if r.capability != "" { // a hook's rewritten command: the daemon prepares its sandbox
		return frontend.Exec(r.socket, r.capability, r.argv, r.stderr)
	}
	dev, err := r.devicePolicy()
	if err != nil {
		return r.refuse(execRefused, "%v: not running %s", err, r.argv[0])
	}
	conf := r.confinement()
	unconfined := r.unconfinedReason(conf, dev)
	if conf.Level == sandbox.LevelNone && unconfined == nil {
		return r.refuse(execRefused, "%v: %s: refusing to run %s unconfined (--allow-unconfined runs it without kernel enforcement)",
			kernel.ErrUnavailable, conf.LandlockErr, r.argv[0])
	}
	path, err := exec.LookPath(r.argv[0])
	if err != nil {
		return r.refuse(execNotFound, "%v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), r.wait+daemonSlack)
	defer cancel()
	c := &ipc.Client{Socket: r.socket, Session: r.session, Token: r.token}
	defer c.CloseIdle()
	ans, err := r.preflight(ctx, c, unconfined != nil)
	if err != nil {
		return r.refuse(execRefused, "%v: not running %s", err, r.argv[0])
	}
	if unconfined != nil {
		return r.runUnconfined(path, ans, unconfined)
	}
	in, err := r.input(ctx, c, ans, dev)
	c.CloseIdle()
	if err != nil {
		return r.refuse(execRefused, "%v: not running %s", err, r.argv[0])
	}
	return r.confined(conf, path, in, deviceOf(in.Policy, dev))
}

// deviceOf is the device policy as the daemon sent it with pol, when it
// did (it loads and watches the file), else dev as read here.
func deviceOf(pol ipc.Policy, dev devicepolicy.Policy) devicepolicy.Policy {
	if pol.Confinement == nil {
		return dev
	}
	dev.Confinement, dev.SSHAgent = *pol.Confinement, pol.SSHAgent
	dev.Toolchains, dev.Caches, dev.ReadOnlyFiles = pol.Toolchains, pol.Caches, pol.ReadOnlyFiles
	return dev
}

// confined runs the command at the machine's level: in a bubblewrap view
// with Landlock inside it, or with Landlock alone, saying what that leaves
// open.
func (r *execRun) confined(conf sandbox.Confinement, path string, in sandbox.Input, dev devicepolicy.Policy) int {
	if conf.Level == sandbox.LevelFull {
		return r.runInView(conf.Bwrap, path, in, dev)
	}
	r.log.Warn("pathgrant exec: Landlock only, no mount view (install bubblewrap)", "gaps", conf.Gaps)
	return r.runLandlock(path, in)
}

// devicePolicy reads the device policy file; a file that does not load
// stops exec rather than run with a policy the user did not write.
func (r *execRun) devicePolicy() (devicepolicy.Policy, error) {
	env, err := devicepolicy.Locate(r.deps.getenv)
	if err != nil {
		return devicepolicy.Policy{}, err
	}
	return devicepolicy.Load(devicepolicy.Dir(r.deps.getenv, env.Home), env)
}

// confinement is what this machine offers.
func (r *execRun) confinement() sandbox.Confinement {
	f := r.deps.bwrap()
	f.LandlockABI, f.LandlockErr = r.deps.probe()
	return sandbox.Assess(f)
}

// unconfinedReason says why the command may run unconfined, or nil when
// it must be confined.
func (r *execRun) unconfinedReason(conf sandbox.Confinement, dev devicepolicy.Policy) error {
	switch {
	case !dev.Confinement:
		return errors.New("the device policy turns confinement off (confinement = false)")
	case conf.Level == sandbox.LevelNone && r.allowUnconfined:
		return fmt.Errorf("%w: %s (--allow-unconfined)", kernel.ErrUnavailable, conf.LandlockErr)
	}
	return nil
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
	ans, err := c.Check(ctx, ipc.CheckRequest{Command: launch.CommandText(r.argv), Tool: tool,
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
	r.log.Warn("pathgrant exec: running the command WITHOUT kernel enforcement",
		"session", r.session, "command", r.argv[0], "reason", why.Error())
	if err := r.deps.execve(path, r.argv, r.deps.environ()); err != nil {
		return r.refuse(execRefused, "exec %s: %v", path, err)
	}
	return 0 // only a test's execve returns without error
}

// input fetches the session's effective permissions now (after the
// pre-flight, so a grant approved while it waited is included) and makes
// the session's private tmp dir: what the view and the rules are built
// from.
func (r *execRun) input(ctx context.Context, c *ipc.Client, ans ipc.Answer, dev devicepolicy.Policy) (sandbox.Input, error) {
	pol, err := c.Policy(ctx)
	if err != nil {
		return sandbox.Input{}, fmt.Errorf("session policy: %w", err)
	}
	used, err := usedGrants(ctx, c, pol, ans)
	if err != nil {
		return sandbox.Input{}, err
	}
	tmp, err := sandbox.SessionTmpDir(sandbox.TmpBase(r.deps.getenv), pol.Session)
	if err != nil {
		return sandbox.Input{}, err
	}
	return r.sandboxInput(pol, used, tmp, deviceOf(pol, dev)), nil
}

// sandboxInput is what the view and the rules are built from.
func (r *execRun) sandboxInput(pol ipc.Policy, used []guard.Scope, tmp string, dev devicepolicy.Policy) sandbox.Input {
	return sandbox.Input{Policy: pol, Used: used, TmpDir: tmp, System: sandbox.SystemRules(),
		Device: sandbox.Device{Toolchains: dev.Toolchains, Caches: dev.Caches, ReadOnlyFiles: dev.ReadOnlyFiles,
			SSHAgent: dev.SSHAgent}}
}

// runLandlock builds the ruleset on the real file system and execs the
// command under it.
func (r *execRun) runLandlock(path string, in sandbox.Input) int {
	in.Terminals = r.deps.terminals()
	rules, err := sandbox.Build(in, sandbox.OSFS{})
	if err != nil {
		return r.refuse(execRefused, "%v: not running %s", err, r.argv[0])
	}
	rs, err := kernel.NewRuleset(rules)
	if err != nil {
		return r.refuse(execRefused, "%v: not running %s", err, r.argv[0])
	}
	r.report(rs.Applied, in.TmpDir)
	err = rs.Exec(path, r.argv, launch.ConfinedEnv(r.deps.environ(), in.TmpDir, in.Device.SSHAgent))
	return r.refuse(execRefused, "%v", err)
}

// innerFlag runs exec's inner step: `pathgrant exec --inner FD`, which
// bubblewrap starts inside the view. It reads the job (rules and command)
// from FD, restricts itself with Landlock and execs the command.
const innerFlag = "--inner"

// runInView execs bubblewrap, which builds the view and runs exec's inner
// step in it. The rules are built here, on the real file system, for the
// paths the view shows at the same places.
func (r *execRun) runInView(bwrap, path string, in sandbox.Input, dev devicepolicy.Policy) int {
	exe, err := os.Executable()
	if err == nil {
		exe, err = filepath.EvalSymlinks(exe)
	}
	if err != nil {
		return r.refuse(execRefused, "find the pathgrant binary for the sandbox: %v", err)
	}
	inner, bins := sandbox.InnerStep(exe)
	fsys := sandbox.NewMemoFS(sandbox.OSFS{}) // one snapshot for the view and the rules
	view, err := sandbox.BuildView(in, sandbox.WithHidden(bins, r.socket, dev.SSHAgent, sandbox.Environ{Getenv: r.deps.getenv, Home: r.deps.getenv("HOME")}), fsys)
	if err != nil {
		return r.refuse(execRefused, "%v: not running %s", err, r.argv[0])
	}
	in.ByMount, in.PrivateTmp = view.ByMount, true
	rs, err := sandbox.Build(in, fsys)
	if err != nil {
		return r.refuse(execRefused, "%v: not running %s", err, r.argv[0])
	}
	r.report(rs, in.TmpDir)
	for _, m := range view.Mounts {
		r.log.Debug("mount", "mount", m.String())
	}
	fd, err := kernel.JobFD(rules.Job{Rules: rs, Path: path, Argv: r.argv})
	if err != nil {
		return r.refuse(execRefused, "%v: not running %s", err, r.argv[0])
	}
	argv := append([]string{"bwrap"}, view.Args(os.Geteuid() == 0, append(inner, strconv.Itoa(fd)))...)
	env := launch.ConfinedEnv(r.deps.environ(), in.TmpDir, dev.SSHAgent)
	if r.deps.captured != nil && r.deps.captured() {
		return r.runExplained(bwrap, argv, env, in)
	}
	err = r.deps.execve(bwrap, argv, env)
	if err != nil {
		return r.refuse(execRefused, "exec %s: %v", bwrap, err)
	}
	return 0 // only a test's execve returns without error
}

// runExplained runs bubblewrap as exec's child with its stderr teed, and
// when the command fails, explains each path it names that lies outside
// the view (reportRefusals). Its status is the command's.
func (r *execRun) runExplained(bwrap string, argv, env []string, in sandbox.Input) int {
	scan := &launch.Scanner{}
	res := frontend.RunTeed(bwrap, argv, env, r.stderr, scan)
	if res.Err != nil {
		return r.refuse(execRefused, "run %s: %v", bwrap, res.Err)
	}
	if res.Status.Exited() && res.Status.ExitStatus() == 0 {
		return 0
	}
	r.reportRefusals(r.stderr, in.Outside(scan.Paths()))
	return frontend.ExitStatus(res.Status)
}

// runInner is `pathgrant exec --inner FD`: the inner step where no
// pathgrant-confine is installed. It never returns when the command runs.
func runInner(fdArg string, stderr io.Writer) int {
	return kernel.RunInner(fdArg, os.Environ(), stderr)
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
func (r *execRun) report(rules []sandbox.Rule, tmp string) {
	r.log.Debug("sandbox", "session", r.session, "tmpdir", tmp, "rules", len(rules))
	for _, a := range rules {
		r.log.Debug("rule", "path", a.Path, "access", a.Access.String(), "why", a.Why)
	}
}
