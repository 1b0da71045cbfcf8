package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// procWatcher tells when processes exit, so that a session ends with the
// process it is bound to. Every Proc is a pid with its start time: a pid
// now held by a process started at another time is a process that exited.
type procWatcher interface {
	// alive reports whether p still runs (a zombie has exited).
	alive(p Proc) bool
	// wait blocks until p has exited (true) or ctx ends (false).
	wait(ctx context.Context, p Proc) bool
}

// procPollEvery is how often the /proc fallback looks at a watched process.
const procPollEvery = 500 * time.Millisecond

// kernelProcs watches real processes: with a pidfd where the kernel has
// them (one poll per watched process, woken by an eventfd when the watch
// is cancelled), else by reading /proc every procPollEvery.
type kernelProcs struct{}

func (kernelProcs) alive(p Proc) bool {
	start, zombie, err := procStart(p.PID)
	return err == nil && !zombie && start == p.Start
}

func (k kernelProcs) wait(ctx context.Context, p Proc) bool {
	exited, err := waitPidfd(ctx, p)
	if err == nil {
		return exited
	}
	return pollProc(ctx, p, k.alive)
}

// errNoPidfd means pidfd_open is not available here (old kernel, or a
// seccomp filter): the caller falls back to polling /proc.
var errNoPidfd = errors.New("pidfd_open unavailable")

// waitPidfd waits on a pidfd for p. The start time is read after the
// pidfd is open: if it differs, the pid already belongs to another
// process and p has exited.
func waitPidfd(ctx context.Context, p Proc) (bool, error) {
	pidfd, err := unix.PidfdOpen(int(p.PID), 0)
	switch {
	case errors.Is(err, unix.ESRCH):
		return true, nil
	case err != nil:
		return false, fmt.Errorf("%w: %v", errNoPidfd, err)
	}
	defer unix.Close(pidfd)
	if start, zombie, err := procStart(p.PID); err != nil || zombie || start != p.Start {
		return true, nil
	}
	cancel, err := newCanceller(ctx)
	if err != nil {
		return false, err
	}
	defer cancel.close()
	fds := []unix.PollFd{{Fd: int32(pidfd), Events: unix.POLLIN}, {Fd: int32(cancel.fd), Events: unix.POLLIN}}
	for {
		_, err := unix.Poll(fds, -1)
		switch {
		case errors.Is(err, unix.EINTR):
			continue
		case err != nil:
			return false, fmt.Errorf("poll pidfd of %d: %w", p.PID, err)
		case fds[0].Revents != 0:
			return true, nil
		case fds[1].Revents != 0:
			return false, nil
		}
	}
}

// canceller is an eventfd that becomes readable when a context ends, so
// that a poll on a pidfd also wakes for it.
type canceller struct {
	fd     int
	mu     sync.Mutex
	closed bool
	stop   func() bool
}

func newCanceller(ctx context.Context) (*canceller, error) {
	fd, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		return nil, fmt.Errorf("%w: eventfd: %v", errNoPidfd, err)
	}
	c := &canceller{fd: fd}
	c.stop = context.AfterFunc(ctx, c.fire)
	return c, nil
}

func (c *canceller) fire() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.closed {
		_, _ = unix.Write(c.fd, []byte{1, 0, 0, 0, 0, 0, 0, 0})
	}
}

// close stops the context hook and closes the eventfd; a fire still
// running finishes first, so it never writes to a reused descriptor.
func (c *canceller) close() {
	c.stop()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	unix.Close(c.fd)
}

// pollProc is the fallback: it looks at p every procPollEvery.
func pollProc(ctx context.Context, p Proc, alive func(Proc) bool) bool {
	t := time.NewTicker(procPollEvery)
	defer t.Stop()
	for alive(p) {
		select {
		case <-ctx.Done():
			return false
		case <-t.C:
		}
	}
	return true
}

// procStart reads a process's start time and whether it is a zombie
// (exited, not yet reaped) from /proc/PID/stat.
func procStart(pid int32) (start uint64, zombie bool, err error) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(int(pid)) + "/stat")
	if err != nil {
		return 0, false, err
	}
	closing := bytes.LastIndexByte(data, ')')
	if closing < 0 {
		return 0, false, fmt.Errorf("/proc/%d/stat: malformed", pid)
	}
	fields := bytes.Fields(data[closing+1:])
	if len(fields) < 20 {
		return 0, false, fmt.Errorf("/proc/%d/stat: too few fields", pid)
	}
	start, err = strconv.ParseUint(string(fields[19]), 10, 64)
	if err != nil {
		return 0, false, fmt.Errorf("/proc/%d/stat: start time: %w", pid, err)
	}
	return start, string(fields[0]) == "Z" || string(fields[0]) == "X", nil
}

// immortalProcs is the watcher of a daemon whose processes are made up
// (Config.Lineage set, in tests): every process lives until the daemon
// stops.
type immortalProcs struct{}

func (immortalProcs) alive(Proc) bool { return true }

func (immortalProcs) wait(ctx context.Context, _ Proc) bool {
	<-ctx.Done()
	return false
}
