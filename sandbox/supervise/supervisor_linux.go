//go:build linux && (amd64 || arm64)

package supervise

import (
	"context"
	"errors"
	"fmt"
	"time"

	"golang.org/x/sys/unix"

	"pathgrant/wire"
)

// pollInterval is how often a held call is checked for having been
// interrupted (Ctrl-C, the client's timeout): its ask to the daemon is
// then cancelled, and with it the request.
const pollInterval = 100 * time.Millisecond

// Serve answers the notifications on listener until ctx ends or no
// process uses the filter any more, then waits for the held calls (which
// end with ctx) and closes listener.
func (s *Supervisor) Serve(ctx context.Context, listener int) error {
	defer unix.Close(listener)
	syncWakeUp(listener)
	wake, err := unix.Eventfd(0, unix.EFD_CLOEXEC)
	if err != nil {
		return fmt.Errorf("supervisor: eventfd: %w", err)
	}
	defer unix.Close(wake)
	stop := context.AfterFunc(ctx, func() { _, _ = unix.Write(wake, []byte{1, 0, 0, 0, 0, 0, 0, 0}) })
	defer stop()
	ctx, cancel := context.WithCancel(ctx)
	defer s.wg.Wait()
	defer cancel()
	fds := []unix.PollFd{{Fd: int32(listener), Events: unix.POLLIN}, {Fd: int32(wake), Events: unix.POLLIN}}
	var n notif
	for {
		if _, err := unix.Poll(fds, -1); err != nil {
			if errors.Is(err, unix.EINTR) {
				continue
			}
			return fmt.Errorf("supervisor: poll: %w", err)
		}
		switch {
		case fds[1].Revents != 0:
			return nil
		case fds[0].Revents&(unix.POLLHUP|unix.POLLERR) != 0:
			return nil
		case fds[0].Revents&unix.POLLIN == 0:
			continue
		}
		if err := recv(listener, &n); err != nil {
			if errors.Is(err, unix.EINTR) || errors.Is(err, unix.ENOENT) {
				continue // the caller went away before we read it
			}
			return fmt.Errorf("supervisor: receive: %w", err)
		}
		if h, ok := s.examine(listener, &n); ok {
			s.hold(ctx, listener, h)
			continue
		}
		_ = proceed(listener, n.id)
	}
}

// held is one open the supervisor holds for the person.
type held struct {
	id    uint64
	tid   int
	dirfd int32  // the call's directory descriptor, for a relative path
	path  string // as the command gave it
	abs   string // absolute and clean: what is asked and opened
	flags uint64
	// pinned is what the name resolved to in the command's view when the
	// call was examined (pin), an O_PATH descriptor, and st its identity.
	pinned int
	st     unix.Stat_t
}

// examine decides, without waiting, whether the call is a read-only open
// of a file under an approvable root: it reads the path from the
// command's memory once, and the decision and the open use that copy.
func (s *Supervisor) examine(listener int, n *notif) (held, bool) {
	c, ok := callOf(n.data.nr)
	if !ok || n.data.arch != auditArch {
		return held{}, false
	}
	tid := int(n.pid)
	h := held{id: n.id, tid: tid, dirfd: unix.AT_FDCWD}
	if c.dirArg >= 0 {
		h.dirfd = int32(n.data.args[c.dirArg])
	}
	if c.flagsArg >= 0 {
		h.flags = n.data.args[c.flagsArg] & 0xffffffff
	} else {
		how, err := readHow(tid, n.data.args[2], n.data.args[3])
		if err != nil || how.Resolve&(unix.RESOLVE_BENEATH|unix.RESOLVE_IN_ROOT) != 0 {
			return held{}, false
		}
		h.flags = how.Flags
	}
	if !readOnly(h.flags) {
		return held{}, false
	}
	path, err := s.rd.path(tid, n.data.args[c.pathArg])
	if err != nil {
		return held{}, false
	}
	var base []byte
	if len(path) > 0 && path[0] != '/' {
		if base, err = s.rd.dir(tid, h.dirfd); err != nil {
			return held{}, false
		}
	}
	if !candidate(s.Roots, base, path) {
		return held{}, false
	}
	abs, ok := join(string(base), string(path))
	if !ok || under(s.Roots, abs) == "" || Covered(s.Granted, abs) {
		return held{}, false
	}
	h.path, h.abs = string(path), abs
	if pin(&h) != nil {
		return held{}, false // missing, or no file: the kernel says so
	}
	if !valid(listener, n.id) { // what was read may be another process's
		unix.Close(h.pinned)
		return held{}, false
	}
	return h, true
}

// hold waits for the person's decision on h in a goroutine of its own,
// within the limits: past them the call fails at once.
func (s *Supervisor) hold(ctx context.Context, listener int, h held) {
	if why := s.Gate.Admit(); why != "" {
		s.refuse(listener, h, fmt.Sprintf("pathgrant: %s: not held for approval: %s", wire.Printable(h.abs), why))
		unix.Close(h.pinned)
		return
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer s.Gate.Release()
		defer unix.Close(h.pinned)
		s.decide(ctx, listener, h)
	}()
}

// decide asks the daemon for h's read, cancelling the ask when the call is
// interrupted, and answers the call: the approved file, or EACCES with one
// line saying why.
func (s *Supervisor) decide(ctx context.Context, listener int, h held) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	defer s.track(h.id, cancel)()
	go watch(ctx, cancel, listener, h.id)
	ans, err := s.Ask.AskHold(ctx, wire.HoldRequest{Path: h.abs, Program: Program(h.tid), By: wire.HeldBySeccomp})
	switch {
	case !valid(listener, h.id):
		return // it went away: nothing waits for the answer
	case errors.Is(context.Cause(ctx), errInterrupted):
		_ = fail(listener, h.id, unix.EINTR) // Ctrl-C: the command's own handler takes it from here
		return
	case err != nil:
		s.refuse(listener, h, fmt.Sprintf("pathgrant: %s: could not ask whether it may be read: %v", wire.Printable(h.abs), err))
		return
	case !ans.Allowed:
		s.refuse(listener, h, ans.Line)
		return
	case ans.Path != h.abs:
		s.refuse(listener, h, fmt.Sprintf("pathgrant: %s: approved as %s, which is not the name the command opened (a link?): refused", wire.Printable(h.abs), wire.Printable(ans.Path)))
		return
	}
	fd, err := openApproved(h, ans.Path)
	if err != nil {
		s.refuse(listener, h, fmt.Sprintf("pathgrant: %s was approved but not handed to the command: %v", wire.Printable(h.abs), err))
		return
	}
	defer unix.Close(fd)
	if err := hand(listener, h.id, fd, h.flags&oCloexec != 0); err != nil && valid(listener, h.id) {
		_ = fail(listener, h.id, unix.EACCES)
	}
}

// watch cancels the ask when the held call no longer waits (the command
// died; a signal it handles does not end the wait: Install).
func watch(ctx context.Context, cancel context.CancelCauseFunc, listener int, id uint64) {
	t := time.NewTicker(pollInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if !valid(listener, id) {
				cancel(nil)
				return
			}
		}
	}
}

// refuse fails h with EACCES and says why on the command's stderr.
func (s *Supervisor) refuse(listener int, h held, line string) {
	if fail(listener, h.id, unix.EACCES) != nil {
		return
	}
	s.mu.Lock()
	s.refused = append(s.refused, h.abs)
	s.mu.Unlock()
	if line != "" && s.Say != nil {
		s.Say(line)
	}
}
