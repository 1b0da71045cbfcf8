package wire

import (
	"context"
	"fmt"
	"os"
	"syscall"
	"time"
)

// The socket is a plain blocking file descriptor with kernel send and
// receive timeouts, not a net.Conn: a client then starts no network
// poller and links no net package, which keeps the hook's and the front
// end's start-up short.

// busyWait bounds how long a dial waits for a daemon whose accept queue
// is full, or that refuses connections for a moment.
const busyWait = 2 * time.Second

// dial connects a blocking stream socket to path. While the daemon's
// accept queue is full the connect waits in the kernel (EAGAIN once that
// wait ends), and a refused one (ECONNREFUSED: the socket file is there
// but nobody accepts, as while the daemon restarts) is tried again after
// a short pause; both for up to busyWait in all, and never past deadline
// (zero: none). A daemon that is not there at all (ENOENT) fails at once.
//
// poll puts the connected socket on the runtime's poller (non-blocking,
// deadlines through SetDeadline): a process that does other work while a
// call waits needs that, since a goroutine blocked in a read holds its
// processor until the scheduler notices, up to milliseconds later.
func dial(ctx context.Context, path string, deadline time.Time, poll bool) (*os.File, error) {
	giveUp := time.Now().Add(busyWait)
	if !deadline.IsZero() && deadline.Before(giveUp) {
		giveUp = deadline
	}
	pause := time.Millisecond
	var lastTry error // the last try's errno, reported if the pause after it overslept the deadline
	for {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("pathgrant daemon at %s: %w", path, err)
		}
		if !deadline.IsZero() && time.Until(deadline) <= 0 {
			if lastTry != nil {
				return nil, dialError(path, lastTry)
			}
			return nil, fmt.Errorf("pathgrant daemon at %s: %w", path, context.DeadlineExceeded)
		}
		fd, err := connect(path, giveUp)
		if err == nil && poll {
			if err := syscall.SetNonblock(fd, true); err != nil {
				syscall.Close(fd)
				return nil, fmt.Errorf("pathgrant daemon at %s: %w", path, err)
			}
		}
		if err == nil {
			return os.NewFile(uintptr(fd), path), nil
		}
		if (err != syscall.EAGAIN && err != syscall.ECONNREFUSED) || time.Now().Add(pause).After(giveUp) {
			return nil, dialError(path, err)
		}
		lastTry = err
		time.Sleep(pause)
		pause = min(2*pause, 50*time.Millisecond)
	}
}

// connect makes one connect to path, waiting in the kernel for room in a
// full accept queue until until. It returns the connected socket, or the
// connect's errno.
func connect(path string, until time.Time) (int, error) {
	fd, err := unixSocket()
	if err != nil {
		return -1, fmt.Errorf("socket: %w", err)
	}
	if err := setTimeouts(fd, until, syscall.SO_SNDTIMEO); err != nil {
		syscall.Close(fd)
		return -1, err
	}
	for {
		err = syscall.Connect(fd, &syscall.SockaddrUnix{Name: path})
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil && err != syscall.EISCONN { // EISCONN: an interrupted connect completed
		syscall.Close(fd)
		return -1, err
	}
	return fd, nil
}

// setTimeouts gives a socket the kernel timeouts opts that end at
// deadline; a zero deadline clears them (the call's context alone ends
// a wait, by shutting the socket down).
func setTimeouts(fd int, deadline time.Time, opts ...int) error {
	var tv syscall.Timeval
	if !deadline.IsZero() {
		// A zero timeout would mean none: wait at least a millisecond.
		tv = syscall.NsecToTimeval(max(time.Until(deadline), time.Millisecond).Nanoseconds())
	}
	for _, opt := range opts {
		if err := syscall.SetsockoptTimeval(fd, syscall.SOL_SOCKET, opt, &tv); err != nil {
			return fmt.Errorf("socket timeout: %w", err)
		}
	}
	return nil
}

// dialError is why no connection was made: a queue that stayed full is a
// daemon that did not answer in time; a refused connect (a bare errno) is
// no daemon there.
func dialError(path string, err error) error {
	if err == syscall.EAGAIN {
		return fmt.Errorf("pathgrant daemon at %s: %w", path, context.DeadlineExceeded)
	}
	if _, connect := err.(syscall.Errno); !connect { // making the socket failed
		return fmt.Errorf("pathgrant daemon at %s: %w", path, err)
	}
	return &UnreachableError{Socket: path, Err: err}
}

// withFD runs fn on f's descriptor.
func withFD(f *os.File, fn func(fd int) error) error {
	raw, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := raw.Control(func(fd uintptr) { ferr = fn(int(fd)) }); err != nil {
		return err
	}
	return ferr
}

// shutdown ends a blocked exchange early (the context was canceled).
func shutdown(f *os.File) {
	_ = withFD(f, func(fd int) error { return syscall.Shutdown(fd, syscall.SHUT_RDWR) })
}
