package engine

import (
	"path/filepath"

	"pathgrant/sandbox"
	"pathgrant/sandbox/heldfs"
)

// Where the daemon's held-open file system is mounted (package
// sandbox/heldfs), a confined command's approvable roots are served from
// it: each prepared command's part is registered before its sandbox can
// start and unregistered when it has ended (its front end reported, or
// is gone; the daemon's own commands when they return). Its opens are
// asked here, in process, exactly as a held open's are (hold.go), and
// what it refused is said at the command's end on every door.

// HeldServer is the held-open file system as the engine uses it;
// unregistering a token it does not serve does nothing.
type HeldServer interface {
	Register(token string, c heldfs.Command) error
	Unregister(token string)
}

// serve registers l's served roots for sess, the command by that holder
// starts (its front end, or the daemon itself), whose read denials
// denied are refused without asking again and whose opens wait no longer
// than its client's clock. A command whose roots
// cannot be served is not run: its view binds them. What unserves it is
// the caller's: its end, or its holder's (watchHolder, unserveWhenGone).
func (s *Engine) serve(sess *session, l sandbox.Launch, holder Proc, denied []string, by raiser, clock toolClock) *Error {
	v := l.Served
	if v == nil {
		return nil
	}
	if s.cfg.Held == nil {
		return errorf(Unavailable, "", "the held-open file system is not mounted: not running the command")
	}
	bwrap, err := filepath.EvalSymlinks(l.Prepared.Bwrap)
	if err != nil {
		return errorf(Unavailable, "", "bubblewrap %q: %v", l.Prepared.Bwrap, err)
	}
	token := v.Token
	err = s.cfg.Held.Register(token, heldfs.Command{Roots: v.Roots, Granted: v.Granted, Bwrap: bwrap,
		Holder: heldfs.Holder{PID: holder.PID, Start: holder.Start},
		Ask:    heldOpens{s: s, sess: sess, roots: v.Roots, by: by, denied: denied, clock: clock},
		Say:    func(path, line string) { s.heldLines.add(token, path, line) }})
	if err != nil {
		return errorf(Unavailable, "", "serve the approvable roots: %v", err)
	}
	return nil
}

// unserveWhenGone unserves token once holder, a front end, is gone (one
// killed before it reported). A command with an owed check has that
// check's watch do it (watchHolder): a second watch per command would
// be one more thread blocked in the kernel while the command runs.
func (s *Engine) unserveWhenGone(token string, holder Proc) {
	if token == "" {
		return
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		s.procs.wait(s.ctx, holder)
		s.unserve(token)
	}()
}

// unserve stops serving token (a token not registered, or no longer,
// is nothing to the file system) and returns what its command was
// refused: the lines for its end, and the paths, which the refusal scan
// must not ask about again.
func (s *Engine) unserve(token string) (lines, refused []string) {
	if token == "" {
		return nil, nil
	}
	if s.cfg.Held != nil {
		s.cfg.Held.Unregister(token)
	}
	return s.heldLines.take(token)
}

// servedToken is l's held-open token, "" when it has none.
func servedToken(l sandbox.Launch) string {
	if l.Served == nil {
		return ""
	}
	return l.Served.Token
}
