package engine

import (
	"context"
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// errNoKqueue means the kernel would not watch the process (a kqueue
// could not be made or the filter registered): the caller falls back to
// polling the process.
var errNoKqueue = errors.New("kqueue process watch unavailable")

// cancelIdent names the EVFILT_USER event that wakes a watch whose
// context ended; it is the only user event in its kqueue.
const cancelIdent = 1

// waitKernel waits for p's exit with a kqueue of its own: EVFILT_PROC with
// NOTE_EXIT fires when the process exits, and an EVFILT_USER event,
// triggered when ctx ends, wakes the same kevent call. The start time is
// read after the exit filter is registered: if it differs, the pid
// already belongs to another process and p has exited (the filter then
// watches that other process, and is dropped unheard with the kqueue).
func waitKernel(ctx context.Context, p Proc) (bool, error) {
	kq, err := unix.Kqueue()
	if err != nil {
		return false, fmt.Errorf("%w: %v", errNoKqueue, err)
	}
	var user unix.Kevent_t
	unix.SetKevent(&user, cancelIdent, unix.EVFILT_USER, unix.EV_ADD|unix.EV_CLEAR)
	if _, err := unix.Kevent(kq, []unix.Kevent_t{user}, nil, nil); err != nil {
		unix.Close(kq)
		return false, fmt.Errorf("%w: EVFILT_USER: %v", errNoKqueue, err)
	}
	// The cancel event is registered before the hook that triggers it, so
	// a context that has already ended still wakes the wait.
	hook := wakeOnDone(ctx, func() { triggerCancel(kq) })
	defer hook.close(func() { unix.Close(kq) })
	var exit unix.Kevent_t
	unix.SetKevent(&exit, int(p.PID), unix.EVFILT_PROC, unix.EV_ADD|unix.EV_ONESHOT)
	exit.Fflags = unix.NOTE_EXIT
	_, err = unix.Kevent(kq, []unix.Kevent_t{exit}, nil, nil)
	switch {
	case errors.Is(err, unix.ESRCH):
		return true, nil
	case err != nil:
		return false, fmt.Errorf("%w: EVFILT_PROC of %d: %v", errNoKqueue, p.PID, err)
	}
	if start, zombie, err := procStart(p.PID); err != nil || zombie || start != p.Start {
		return true, nil
	}
	return keventExit(kq, p)
}

// keventExit blocks until the exit filter (true) or the cancel event
// (false) fires.
func keventExit(kq int, p Proc) (bool, error) {
	events := make([]unix.Kevent_t, 2)
	for {
		n, err := unix.Kevent(kq, nil, events, nil)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return false, fmt.Errorf("kevent for %d: %w", p.PID, err)
		}
		for _, ev := range events[:n] {
			switch ev.Filter {
			case unix.EVFILT_PROC:
				return true, nil
			case unix.EVFILT_USER:
				return false, nil
			}
		}
	}
}

// triggerCancel fires the kqueue's EVFILT_USER event.
func triggerCancel(kq int) {
	var ev unix.Kevent_t
	unix.SetKevent(&ev, cancelIdent, unix.EVFILT_USER, 0)
	ev.Fflags = unix.NOTE_TRIGGER
	_, _ = unix.Kevent(kq, []unix.Kevent_t{ev}, nil, nil)
}
