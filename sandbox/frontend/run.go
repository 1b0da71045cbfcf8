package frontend

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// forwardedSignals are passed on to the sandbox when the front end runs it as its
// child, so the command gets what the front end gets (SIGKILL cannot be caught:
// bubblewrap's --die-with-parent ends the sandbox then).
var forwardedSignals = []os.Signal{syscall.SIGHUP, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGTERM,
	syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGALRM, syscall.SIGWINCH}

// drainGrace bounds how long the front end reads the sandbox's stderr after it
// exited. bubblewrap's PID namespace ends every process in it with the
// sandbox, so the pipe closes at once; the bound is only a backstop.
const drainGrace = time.Second

// StderrCaptured reports whether fd 2 is not a terminal: an agent's tool
// reads it. On a terminal the front end replaces itself with the
// sandbox, so the command keeps the terminal as its stderr.
func StderrCaptured() bool {
	_, err := unix.IoctlGetTermios(2, unix.TCGETS)
	return err != nil
}

// ChildResult is how the sandbox ended.
type ChildResult struct {
	Status syscall.WaitStatus
	Err    error // it did not start
}

// RunTeed runs path (bubblewrap) as a child with the front end's stdin and stdout,
// and its stderr through a pipe that is copied to stderr as it comes and
// to side. Signals the front end receives are forwarded to it.
func RunTeed(path string, argv, env []string, stderr, side io.Writer) ChildResult {
	pr, pw, err := os.Pipe()
	if err != nil {
		return ChildResult{Err: fmt.Errorf("stderr pipe: %w", err)}
	}
	proc, err := os.StartProcess(path, argv, &os.ProcAttr{Env: env, Files: []*os.File{os.Stdin, os.Stdout, pw}})
	pw.Close()
	if err != nil {
		pr.Close()
		return ChildResult{Err: err}
	}
	// Signals are taken over once the sandbox starts, so that setting up
	// their delivery overlaps it; one that comes before ends this process
	// as it would have, and --die-with-parent the sandbox with it.
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, append(slices.Clone(forwardedSignals), syscall.SIGPIPE)...)
	defer signal.Stop(sigs)
	copied := make(chan struct{})
	go func() { teeStderr(pr, stderr, side); close(copied) }()
	waited := make(chan ChildResult, 1)
	go func() {
		st, err := proc.Wait()
		if err != nil {
			waited <- ChildResult{Err: err}
			return
		}
		waited <- ChildResult{Status: st.Sys().(syscall.WaitStatus)}
	}()
	for {
		select {
		case s := <-sigs:
			if s != syscall.SIGPIPE { // our own stderr went away: the copy stops, the command sees EPIPE
				_ = proc.Signal(s)
			}
		case res := <-waited:
			select {
			case <-copied:
			case <-time.After(drainGrace):
			}
			pr.Close()
			return res
		}
	}
}

// teeStderr copies the sandbox's stderr to w and side until it ends or
// w refuses it; then it closes r, so the command's next write fails as it
// would have on w.
func teeStderr(r *os.File, w, side io.Writer) {
	defer r.Close()
	buf := make([]byte, 32*1024)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			side.Write(buf[:n])
			if _, werr := w.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
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
