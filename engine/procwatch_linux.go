package engine

import (
	"context"
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// errNoPidfd means pidfd_open is not available here (old kernel, or a
// seccomp filter): the caller falls back to polling /proc.
var errNoPidfd = errors.New("pidfd_open unavailable")

// waitKernel waits on a pidfd for p, one poll per watched process, woken
// by an eventfd when the watch is cancelled.
func waitKernel(ctx context.Context, p Proc) (bool, error) { return waitPidfd(ctx, p) }

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
	fd   int
	hook *doneWaker
}

func newCanceller(ctx context.Context) (*canceller, error) {
	fd, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		return nil, fmt.Errorf("%w: eventfd: %v", errNoPidfd, err)
	}
	c := &canceller{fd: fd}
	c.hook = wakeOnDone(ctx, c.fire)
	return c, nil
}

func (c *canceller) fire() { _, _ = unix.Write(c.fd, []byte{1, 0, 0, 0, 0, 0, 0, 0}) }

// close stops the context hook and closes the eventfd.
func (c *canceller) close() { c.hook.close(func() { unix.Close(c.fd) }) }
