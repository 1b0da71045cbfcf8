package engine

import (
	"context"
	"sync"
	"time"
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

// procPollEvery is how often the polling fallback looks at a watched
// process.
const procPollEvery = 500 * time.Millisecond

// kernelProcs watches real processes: the kernel wakes the watch when the
// process exits (waitKernel: a pidfd on Linux, kqueue on macOS), else the
// process is read every procPollEvery.
type kernelProcs struct{}

func (kernelProcs) alive(p Proc) bool {
	start, zombie, err := procStart(p.PID)
	return err == nil && !zombie && start == p.Start
}

func (k kernelProcs) wait(ctx context.Context, p Proc) bool {
	exited, err := waitKernel(ctx, p)
	if err == nil {
		return exited
	}
	return pollProc(ctx, p, k.alive)
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

// doneWaker runs wake when a context ends, so that a watch blocked in the
// kernel (poll on a pidfd, kevent) also wakes for it, through a
// descriptor of its own that wake writes to.
type doneWaker struct {
	mu     sync.Mutex
	closed bool
	stop   func() bool
}

func wakeOnDone(ctx context.Context, wake func()) *doneWaker {
	w := &doneWaker{}
	w.stop = context.AfterFunc(ctx, func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		if !w.closed {
			wake()
		}
	})
	return w
}

// close stops the context hook, then runs release (which closes the
// descriptor wake uses): a wake still running finishes first, and none
// runs after, so wake never writes to a descriptor closed and reused.
func (w *doneWaker) close(release func()) {
	w.stop()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closed = true
	release()
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
