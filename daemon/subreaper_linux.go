package daemon

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// The daemon is the child subreaper of everything its tool calls start:
// a process that detaches (`setsid -f`, a double fork) is reparented to
// the daemon, not to init, so it stays below the daemon, and the daemon's
// socket refuses it every person-only route as one of its tools'
// processes (ipc's belowDaemon). A subreaper must then reap those
// orphans, without stealing the children package os/exec waits for.
//
// How: os/exec holds a pidfd for every child it starts, from the clone
// until its Wait has reaped it. The reaper lists its zombie children
// (/proc), pins each with a pidfd of its own, and reaps it through that
// pidfd only when no other pidfd in this process names it: an orphan is
// reaped, an os/exec child is left to its Wait. Pinning first means a pid
// reused in between is never reaped by mistake. Where os/exec does not
// hold pidfds (an old kernel), nothing is reaped and orphans stay zombies
// until the daemon exits: a warning says so.

// reapEvery is the backstop for SIGCHLDs that coalesce.
const reapEvery = 5 * time.Second

// StartSubreaper makes this process a child subreaper and, when it can
// tell its os/exec children apart, starts reaping orphans. An error means
// the process is no subreaper.
func StartSubreaper(log *slog.Logger) (*Subreaper, error) {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return nil, fmt.Errorf("become a child subreaper: %w", err)
	}
	r := &Subreaper{log: log, stop: make(chan struct{})}
	if err := execHoldsPidfds(); err != nil {
		log.Warn("orphans of tool calls are not reaped until the daemon exits", "why", err)
		return r, nil
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGCHLD)
	r.done.Add(1)
	go r.loop(sig)
	return r, nil
}

func (r *Subreaper) loop(sig chan os.Signal) {
	defer r.done.Done()
	defer signal.Stop(sig)
	t := time.NewTicker(reapEvery)
	defer t.Stop()
	for {
		r.reapOrphans()
		select {
		case <-r.stop:
			return
		case <-sig:
		case <-t.C:
		}
	}
}

// reapOrphans reaps every zombie child no other pidfd of this process
// names. It lists the zombies (a walk of /proc) only when the kernel says
// a child waits to be reaped, looking without reaping (WNOWAIT).
func (r *Subreaper) reapOrphans() {
	var info unix.Siginfo
	if err := unix.Waitid(unix.P_ALL, 0, &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil); err != nil || info.Signo != int32(unix.SIGCHLD) {
		return
	}
	for _, pid := range zombieChildren() {
		fd, err := unix.PidfdOpen(pid, 0)
		if err != nil {
			continue // already reaped
		}
		if held, err := pidfdsHeld(fd); err == nil && !held[pid] {
			if unix.Waitid(unix.P_PIDFD, fd, nil, unix.WEXITED|unix.WNOHANG, nil) == nil {
				r.reaped.Add(1)
				r.log.Debug("reaped an orphan of a tool call", "pid", pid)
			}
		}
		unix.Close(fd)
	}
}

// execHoldsPidfds checks that os/exec holds a pidfd for a child it
// started, which is what tells its children from orphans.
func execHoldsPidfds() error {
	cmd := exec.Command("/bin/sh", "-c", "read _; exit 0")
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("probe os/exec's pidfds: %w", err)
	}
	held, err := pidfdsHeld(-1)
	in.Close()
	if werr := cmd.Wait(); err == nil && werr != nil {
		err = fmt.Errorf("probe os/exec's pidfds: %w", werr)
	}
	if err == nil && !held[cmd.Process.Pid] {
		err = errors.New("os/exec holds no pidfd for its children here, so they cannot be told from orphans")
	}
	return err
}
