package supervise

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"pathgrant/wire"
)

// Asker asks the daemon, on the session's behalf, to read a file a held
// open names, and waits for the person's decision (or ctx).
type Asker interface {
	AskHold(ctx context.Context, r wire.HoldRequest) (wire.HoldAnswer, error)
}

// Supervisor serves one confined command's listener.
type Supervisor struct {
	// Roots are the approvable roots, absolute and clean, as the view
	// shows them (at the same paths as outside).
	Roots []string
	// Granted are the read grants the command's Landlock rules hold: an
	// open they cover continues to the kernel, which serves it.
	Granted []wire.Scope
	Ask     Asker
	// Say writes one line to the command's stderr: why a held open
	// failed.
	Say func(line string)
	// Gate bounds the calls held at once and asked per minute.
	Gate Gate

	rd      reader // Serve's alone
	wg      sync.WaitGroup
	mu      sync.Mutex
	refused []string // the paths of held opens that failed, for the refusal scan
	waiting map[uint64]context.CancelCauseFunc
}

// errInterrupted is why the asks of an interrupted command end.
var errInterrupted = errors.New("interrupted")

// Interrupt ends the asks of the opens held now, and their calls fail
// with EINTR: the front end got Ctrl-C (or another signal it passes on).
// A held call waits through the signals its command handles (so a timer
// cannot make it ask again and again), so the front end says so here.
func (s *Supervisor) Interrupt() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, cancel := range s.waiting {
		cancel(errInterrupted)
	}
}

// track counts call id's ask as waiting until the returned func is called.
func (s *Supervisor) track(id uint64, cancel context.CancelCauseFunc) func() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.waiting == nil {
		s.waiting = map[uint64]context.CancelCauseFunc{}
	}
	s.waiting[id] = cancel
	return func() {
		s.mu.Lock()
		delete(s.waiting, id)
		s.mu.Unlock()
	}
}

// Limits bound what one command can make the supervisor do; past them a
// held open fails with EACCES at once, never waiting on the person.
type Limits struct {
	Held      int // calls held at once (default 8)
	PerMinute int // asks per minute (default 60); the daemon coalesces and caps requests too
}

func (l Limits) held() int      { return orDefault(l.Held, 8) }
func (l Limits) perMinute() int { return orDefault(l.PerMinute, 60) }

func orDefault(n, d int) int {
	if n > 0 {
		return n
	}
	return d
}

// Gate counts one command's held calls against its Limits: the seccomp
// supervisor's and the FUSE view's (package heldfs) alike. Its zero
// value has the default limits.
type Gate struct {
	Limits Limits

	mu     sync.Mutex
	held   int       // calls held now
	window time.Time // the start of the current minute of asks
	asked  int       // asks in that minute
}

// Admit counts one more held call, or says which limit it is past.
func (g *Gate) Admit() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	now := time.Now()
	if now.Sub(g.window) >= time.Minute {
		g.window, g.asked = now, 0
	}
	switch {
	case g.held >= g.Limits.held():
		return fmt.Sprintf("%d opens of this command already wait for the person", g.held)
	case g.asked >= g.Limits.perMinute():
		return fmt.Sprintf("this command asked %d times within a minute", g.asked)
	}
	g.held++
	g.asked++
	return ""
}

// Release counts one held call less.
func (g *Gate) Release() {
	g.mu.Lock()
	g.held--
	g.mu.Unlock()
}

// Refused are the paths of the held opens that failed: their refusal was
// said already, so the refusal scan leaves them out.
func (s *Supervisor) Refused() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.refused...)
}
