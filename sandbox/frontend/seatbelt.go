package frontend

import (
	"fmt"
	"os"
	"slices"
	"syscall"

	"pathgrant/sandbox/launch"
	"pathgrant/wire"
)

// seatbeltCommand is what runs a command the daemon prepared a Seatbelt
// profile for (macOS): sandbox-exec with the profile, then the program
// and its arguments (sandbox-exec execs the program under the profile,
// so it is the command's argv[0] as well), in the confined environment.
// There is no inner step and no job.
func seatbeltCommand(p wire.Prepared, path string, argv, environ []string) (string, []string, []string, *os.File, error) {
	if p.Seatbelt == "" || path == "" || len(argv) == 0 {
		return "", nil, nil, nil, fmt.Errorf("the daemon prepared no Seatbelt profile for %q", argv)
	}
	args := slices.Concat([]string{"sandbox-exec", "-p", p.Seatbelt, "--", path}, argv[1:])
	return wire.SandboxExec, args, launch.ConfinedEnv(environ, p.TmpDir, p.SSHAgent, launch.Net{}), nil, nil
}

// procAttr is how the sandbox's first process starts. Under Seatbelt it
// starts a session of its own (bubblewrap's --new-session): it has no
// controlling terminal, so it cannot push input into the person's
// (TIOCSTI); the session is its own process group too, killed whole when
// the daemon's tool call ends. Otherwise, a group of its own when c asks,
// killed when this process dies (diesWithUs).
func (c Child) procAttr() *syscall.SysProcAttr {
	if c.Prepared.Level == wire.LevelSeatbelt && c.Prepared.Unconfined == "" {
		return &syscall.SysProcAttr{Setsid: true}
	}
	return diesWithUs(&syscall.SysProcAttr{Setpgid: c.OwnGroup})
}

// forward passes a signal the front end got on to the sandbox: under
// Seatbelt to its whole session (the sandbox's process group), as the
// terminal would have sent it to the foreground group the command left;
// otherwise to bubblewrap or the inner step.
func (c Child) forward(proc *os.Process, s os.Signal) {
	if sig, ok := s.(syscall.Signal); ok && c.Prepared.Level == wire.LevelSeatbelt && c.Prepared.Unconfined == "" {
		_ = syscall.Kill(-proc.Pid, sig)
		return
	}
	_ = proc.Signal(s)
}
