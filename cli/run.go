package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"pathgrant/apiclient"
	"pathgrant/appdirs"
	"pathgrant/wire"
)

const runUsageText = "usage: pathgrant run [--workspace DIR]... [--read-only DIR]... [--blocked-write PATH]... [--kind interactive|background|scheduled] [--agent NAME] [--socket PATH] -- COMMAND [ARG]..."

// launchArgs are the parsed arguments of `pathgrant run`.
type launchArgs struct {
	workspace, readOnly, blocked repeated
	kind, agent, socket          string
	command                      []string
}

// runLauncher implements `pathgrant run`: it registers a session with the
// daemon (a child of $PATHGRANT_SESSION when run inside one), runs the
// command with PATHGRANT_SESSION, PATHGRANT_TOKEN and PATHGRANT_SOCKET in
// its environment, and ends the session when the command exits. The exit
// status is the command's (128+N when a signal N ended it); 1 when no
// session could be registered (the command is then not started: it would
// run unguarded), 2 on a usage error, 127 when the command cannot start.
func runLauncher(args []string, stdout, stderr io.Writer) int {
	a, err := parseLaunchArgs(args)
	if err != nil {
		return parseFailed("run", runUsageText, err, stdout, stderr)
	}
	sock, err := filepath.Abs(socketOr(a.socket))
	if err != nil {
		fmt.Fprintf(stderr, "pathgrant run: socket: %v\n", err)
		return exitUsage
	}
	sess, err := launchRegister(a, sock)
	if err != nil {
		fmt.Fprintf(stderr, "pathgrant run: %s; not starting %s without a session\n", oneLine(err.Error()), a.command[0])
		return exitFail
	}
	code := launchCommand(a.command, launchEnv(os.Environ(), sess, sock), stderr)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	end := apiclient.New(sock)
	end.Token = sess.Token
	if err := end.EndSession(ctx, sess.ID); err != nil {
		fmt.Fprintf(stderr, "pathgrant run: end session %s: %s\n", sess.ID, oneLine(err.Error()))
	}
	return code
}

func parseLaunchArgs(args []string) (launchArgs, error) {
	var a launchArgs
	fs := newFlags("run")
	fs.Var(&a.workspace, "workspace", "workspace root, read and write (repeatable; default: the current folder)")
	fs.Var(&a.readOnly, "read-only", "read-only root (repeatable)")
	fs.Var(&a.blocked, "blocked-write", "path never writable, even inside the workspace (repeatable)")
	fs.StringVar(&a.kind, "kind", "", "session kind: interactive (waits for approvals), background or scheduled")
	fs.StringVar(&a.agent, "agent", "", "agent name for prompts and the audit log (default: the command's name)")
	fs.StringVar(&a.socket, "socket", "", socketHelp)
	if err := parseLeading(fs, args); err != nil {
		return a, err
	}
	a.command = fs.Args()
	if len(a.command) == 0 {
		return a, usagef("no command to run")
	}
	if a.agent == "" {
		a.agent = filepath.Base(a.command[0])
	}
	return a, nil
}

// launchRegister registers the session: the workspace roots (default the
// current folder), made absolute; a child of the session this process
// runs in, if any, so it can never hold more than that one.
func launchRegister(a launchArgs, sock string) (wire.SessionResponse, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return wire.SessionResponse{}, fmt.Errorf("current folder: %w", err)
	}
	abs := func(ps []string) []string {
		out := make([]string, 0, len(ps))
		for _, p := range ps {
			if !filepath.IsAbs(p) {
				p = filepath.Join(cwd, p)
			}
			out = append(out, p)
		}
		return out
	}
	// EndWithLauncher: the daemon ends the session when this process
	// exits, even if it is killed before it can say so.
	req := wire.SessionRequest{Agent: a.agent, Kind: a.kind, Cwd: cwd, Parent: os.Getenv(appdirs.SessionEnv), EndWithLauncher: true}
	ws := []string(a.workspace)
	if len(ws) == 0 {
		ws = []string{cwd}
	}
	req.Workspace, req.ReadOnly, req.BlockedWrite = abs(ws), abs(a.readOnly), abs(a.blocked)
	c := apiclient.New(sock)
	if req.Parent != "" {
		c.Token = os.Getenv(appdirs.TokenEnv) // a child is registered with its parent's token
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := c.Register(ctx, req)
	var ae *wire.DaemonError
	switch {
	case errors.As(err, &ae):
		return resp, fmt.Errorf("the daemon refused the session: %s", ae.Msg)
	case err != nil:
		return resp, daemonError(sock, err) // unreachable: wire.NotRunning, naming how to start it
	}
	return resp, nil
}

// launchEnv is env with the session's identity in place of any inherited.
func launchEnv(env []string, sess wire.SessionResponse, sock string) []string {
	out := make([]string, 0, len(env)+3)
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if k != appdirs.SessionEnv && k != appdirs.TokenEnv && k != appdirs.SocketEnv {
			out = append(out, kv)
		}
	}
	return append(out, appdirs.SessionEnv+"="+sess.ID, appdirs.TokenEnv+"="+sess.Token, appdirs.SocketEnv+"="+sock)
}

// launchCommand runs argv with env and the standard streams, and returns
// its exit status. On Linux pathgrant is the command's child subreaper
// (becomeSubreaper): whatever the command starts and detaches (setsid, a
// double fork) stays a descendant of this process rather than of init, so
// it is still seen under the agent, and is reaped here when it exits.
// macOS has no subreaper: there a detached process is reparented to
// launchd (daemon.MacDetachedGap). SIGTERM and SIGHUP sent to pathgrant are
// passed on; SIGINT and SIGQUIT from the terminal already reach the
// command (it is in the same foreground process group), so pathgrant
// only outlives them.
func launchCommand(argv, env []string, stderr io.Writer) int {
	if err := becomeSubreaper(); err != nil {
		fmt.Fprintf(stderr, "pathgrant run: cannot become the command's subreaper: %s\n", oneLine(err.Error()))
		return exitFail
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(stderr, "pathgrant run: %s\n", oneLine(err.Error()))
		return execNotFound
	}
	done := make(chan struct{})
	go func() {
		for {
			select {
			case s := <-sigs:
				if s == syscall.SIGTERM || s == syscall.SIGHUP {
					_ = cmd.Process.Signal(s)
				}
			case <-done:
				return
			}
		}
	}()
	ws, err := reapUntil(cmd.Process.Pid)
	close(done)
	_ = cmd.Process.Release()
	reapExited()
	switch {
	case err != nil:
		fmt.Fprintf(stderr, "pathgrant run: wait for %s: %s\n", argv[0], oneLine(err.Error()))
		return exitFail
	case ws.Signaled():
		return 128 + int(ws.Signal())
	}
	return ws.ExitStatus()
}

// reapUntil waits for any child, reaping the detached descendants this
// subreaper adopted (on Linux) as they exit, until the command itself
// exits; it returns the command's status.
func reapUntil(pid int) (unix.WaitStatus, error) {
	for {
		var ws unix.WaitStatus
		got, err := unix.Wait4(-1, &ws, 0, nil)
		switch {
		case errors.Is(err, unix.EINTR):
		case err != nil:
			return ws, err
		case got == pid:
			return ws, nil
		}
	}
}

// reapExited reaps adopted descendants that have already exited; those
// still running outlive the command and are reparented when pathgrant
// exits.
func reapExited() {
	for {
		var ws unix.WaitStatus
		got, err := unix.Wait4(-1, &ws, unix.WNOHANG, nil)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil || got <= 0 {
			return
		}
	}
}
