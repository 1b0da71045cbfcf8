package frontend

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"slices"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"pathgrant/sandbox/kernel"
	"pathgrant/sandbox/launch"
	"pathgrant/sandbox/supervise"
	"pathgrant/wire"
)

// forwardedSignals are passed on to the sandbox when a front end process
// runs it, so the command gets what the front end gets (SIGKILL cannot be
// caught: bubblewrap's --die-with-parent ends the sandbox then).
var forwardedSignals = []os.Signal{syscall.SIGHUP, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGTERM,
	syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGALRM, syscall.SIGWINCH}

// interrupting are the forwarded signals that end a held open's wait:
// the command is being stopped, not told the window changed.
var interrupting = []os.Signal{syscall.SIGHUP, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGTERM}

// drainGrace bounds how long Run reads the sandbox's output after it
// exited. bubblewrap's PID namespace ends every process in it with the
// sandbox, so the pipes close at once; the bound is only a backstop.
const drainGrace = time.Second

// StderrCaptured reports whether fd 2 is not a terminal: an agent's tool
// reads it, and its refusals are scanned. On a terminal the sandbox gets
// the terminal as its stderr, straight.
func StderrCaptured() bool {
	_, err := unix.IoctlGetTermios(2, getTermios)
	return err != nil
}

// Child is one prepared command that Run runs as a child, the same way
// for every door: a hook's rewritten command (pathgrant-confine), the
// daemon's own tool calls, `pathgrant exec --session`.
type Child struct {
	Prepared wire.Prepared
	// Path and Argv are the command (Path absolute); Argv[0] names it in
	// messages. The prepared job already holds them for a confined run.
	Path string
	Argv []string
	// Env is the caller's environment for the command; a confined run
	// gets launch.ConfinedEnv of it.
	Env []string
	// Dir is where it starts ("": the caller's own directory).
	Dir string
	// Stdin, Stdout and Stderr: an *os.File is passed as it is, another
	// writer gets a pipe copied to it; nil stdin is /dev/null. Stderr is
	// scanned for refused paths unless StraightStderr.
	Stdin          *os.File
	Stdout, Stderr io.Writer
	// StraightStderr passes Stderr (a terminal, an *os.File) to the
	// sandbox untouched: nothing is scanned.
	StraightStderr bool
	// ForwardSignals passes the signals this process receives on to the
	// sandbox: a front end process, never the daemon.
	ForwardSignals bool
	// OwnGroup starts the sandbox in a process group of its own, killed
	// whole when ctx ends (the daemon's tool calls).
	OwnGroup bool
	// Started, when set, is told the sandbox's process id once it runs
	// (the daemon marks it as the session's agent process).
	Started func(pid int)
	// Hold asks the daemon for a read whose open the command's supervisor
	// holds (Prepared.Hold): over the socket with the hold ticket for a
	// front end process, in process for the daemon's own tool calls.
	Hold supervise.Asker
	// Net is the way out of the command's network namespace
	// (Prepared.Net): a Unix socket whose other end is the daemon's
	// proxy, handed to the inner step at launch.NetFD, which sends its
	// loopback listener over it. Run closes it once the command ended;
	// nil: the command has its own loopback only.
	Net *os.File
}

// LandlockOnly is what every door says on the stderr of a command that
// runs under Landlock alone (no bubblewrap, or no user namespaces).
const LandlockOnly = "pathgrant exec: confined by Landlock only, no mount view (install bubblewrap): no Unix sockets, no /proc but the command's own, and what it starts can outlive it (still counted as the agent's)"

// Result is how the sandbox ended.
type Result struct {
	Status syscall.WaitStatus
	Err    error // it did not start, or ended without a status
	// Killed: ctx ended before the sandbox did, and it was killed.
	Killed bool
	// Refused are the stderr lines that name a refusal (launch.Scanner),
	// for the daemon to explain; those naming a path whose held open
	// failed are left out: Held said why.
	Refused []string
	// Held are the supervisor's lines, one per held open that failed.
	Held []string
	// NoRoute: the command has a network namespace of its own and its
	// stderr said a connection or a name found no way out (Notes).
	NoRoute bool
}

// Notes are the lines every door adds to a command's stderr at its end:
// the supervisor's, and for a failed command that found no way out of
// its network namespace, why (launch.NoRouteLine).
func (r Result) Notes() []string {
	if r.NoRoute && !r.Succeeded() {
		return append(slices.Clone(r.Held), launch.NoRouteLine)
	}
	return r.Held
}

// Succeeded reports whether the command ran and exited 0.
func (r Result) Succeeded() bool {
	return r.Err == nil && r.Status.Exited() && r.Status.ExitStatus() == 0
}

// Run runs c: bubblewrap with the prepared view and the inner step (the
// job in a memory file at descriptor 3), or the inner step alone where
// the machine has Landlock only, or on macOS sandbox-exec with the
// prepared Seatbelt profile (in a session of its own), or, when the
// device policy turns confinement off, the command itself after saying
// so on its stderr. It waits for the sandbox to exit, and kills it when
// ctx ends first (bubblewrap runs with --die-with-parent in a PID
// namespace of its own, so the whole sandbox goes with it).
//
// The check of what the command left in the workspace is not Run's: the
// daemon owes it from the moment it prepared the command, and runs it
// when the caller reports the end (RunExplained, the daemon's own tool
// calls) or, failing that, when this process is gone.
func Run(ctx context.Context, c Child) Result {
	if c.Stderr == nil {
		c.Stderr = io.Discard
	}
	return start(ctx, c)
}

// start runs c and waits for it, on one OS thread throughout: the
// sandbox's parent-death signal follows the thread that started it
// (diesWithUs).
func start(ctx context.Context, c Child) Result {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if c.Net != nil {
		// The daemon serves the way out until every copy of this end is
		// closed, and bubblewrap and the inner step close theirs before
		// the command runs: this one keeps it open until the command ends.
		defer c.Net.Close()
	}
	path, argv, env, job, err := c.command()
	if err != nil {
		return Result{Err: err}
	}
	if job != nil {
		defer job.Close()
	}
	var scan launch.Scanner
	files, wait, err := c.stdio(job, &scan)
	if err != nil {
		return Result{Err: err}
	}
	sv, err := c.supervision()
	if err != nil {
		wait.started()
		wait.drain()
		return Result{Err: err}
	}
	sigs := c.takeSignals()
	defer signal.Stop(sigs)
	proc, err := os.StartProcess(path, argv, &os.ProcAttr{Dir: c.Dir, Env: env, Files: c.netFiles(sv.files(files)), Sys: c.procAttr()})
	wait.started()
	sv.start(ctx)
	if err != nil {
		wait.drain()
		sv.stop()
		return Result{Err: err}
	}
	if c.Started != nil {
		c.Started(proc.Pid)
	}
	res := c.await(ctx, proc, sv, sigs)
	wait.drain()
	held, refused := sv.stop()
	res.Held, res.Refused = held, launch.Unsaid(scan.Lines(), refused)
	res.NoRoute = c.Prepared.Net != nil && scan.Offline()
	return res
}

// command is what runs: the program, its argv and environment, and the
// job's memory file for the inner step (nil unconfined).
func (c Child) command() (string, []string, []string, *os.File, error) {
	p := c.Prepared
	if p.Unconfined != "" {
		if len(c.Argv) == 0 {
			return "", nil, nil, nil, fmt.Errorf("no command")
		}
		fmt.Fprintf(c.Stderr, "pathgrant exec: running %s UNCONFINED: %s\n", c.Argv[0], p.Unconfined)
		return c.Path, c.Argv, c.Env, nil, nil
	}
	if p.Level == wire.LevelSeatbelt {
		return seatbeltCommand(p, c.Path, c.Argv, c.Env)
	}
	if len(p.Inner) == 0 || len(p.Job) == 0 {
		return "", nil, nil, nil, fmt.Errorf("the daemon prepared no sandbox (level %q)", p.Level)
	}
	job, err := kernel.JobFile(p.Job)
	if err != nil {
		return "", nil, nil, nil, err
	}
	env := launch.ConfinedEnv(c.Env, p.TmpDir, p.SSHAgent, netEnv(p))
	inner := slices.Concat(p.Inner, []string{fmt.Sprint(launch.JobFD)})
	if p.Bwrap == "" { // Landlock alone: the inner step restricts itself
		fmt.Fprintln(c.Stderr, LandlockOnly)
		return inner[0], inner, env, job, nil
	}
	return p.Bwrap, slices.Concat([]string{"bwrap"}, p.Args, []string{"--"}, inner), env, job, nil
}

// takeSignals takes over the signals a front end process forwards (nil
// when c forwards none), before the sandbox starts: a front end started
// with SIGINT ignored (a background job of a script, some agents'
// children) would otherwise start bubblewrap ignoring it too, and a
// forwarded Ctrl-C would end nothing. Taken over, they are caught here,
// and bubblewrap starts with their default action.
func (c Child) takeSignals() chan os.Signal {
	if !c.ForwardSignals {
		return nil
	}
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, append(slices.Clone(forwardedSignals), syscall.SIGPIPE)...)
	return sigs
}

// await waits for proc, killing it (and its group) when ctx ends first,
// and forwarding the signals sigs receives (takeSignals); a signal that
// interrupts also ends the waits of the opens sv holds.
func (c Child) await(ctx context.Context, proc *os.Process, sv *supervision, sigs chan os.Signal) Result {
	waited := make(chan Result, 1)
	go func() {
		st, err := proc.Wait()
		if err != nil {
			waited <- Result{Err: err}
			return
		}
		waited <- Result{Status: st.Sys().(syscall.WaitStatus)}
	}()
	killed := false
	for {
		select {
		case s := <-sigs:
			if s != syscall.SIGPIPE { // our own stderr went away: the copy stops, the command sees EPIPE
				c.forward(proc, s)
			}
			if slices.Contains(interrupting, s) {
				sv.interrupt()
			}
		case <-ctx.Done():
			if !killed {
				killed = true
				if c.OwnGroup {
					_ = syscall.Kill(-proc.Pid, syscall.SIGKILL)
				}
				_ = proc.Kill()
			}
		case res := <-waited:
			res.Killed = killed
			return res
		}
	}
}

// ExitStatus is the status the front end exits with for the sandbox's: its exit
// status, or for a signal it can raise on itself, that signal (so the
// caller sees the same wait status); otherwise 128+N, as a shell reports
// it.
func ExitStatus(st syscall.WaitStatus) int {
	if !st.Signaled() {
		return st.ExitStatus()
	}
	sig := st.Signal()
	if sig == syscall.SIGKILL || slices.Contains(forwardedSignals, os.Signal(sig)) {
		signal.Reset(sig)
		_ = syscall.Kill(os.Getpid(), sig)
		time.Sleep(100 * time.Millisecond) // a signal that does not end the front end (SIGWINCH) falls through
	}
	return 128 + int(sig)
}
