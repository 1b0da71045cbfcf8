package frontend

import (
	"context"
	"os"
	"sync"

	"golang.org/x/sys/unix"

	"pathgrant/sandbox/launch"
	"pathgrant/sandbox/supervise"
	"pathgrant/wire"
)

// supervision is a held command's supervisor as Run keeps it: the socket
// pair its inner step sends the seccomp listener on (the child's end at
// launch.HoldFD), and what the supervisor said.
type supervision struct {
	parent int
	child  *os.File
	sup    *supervise.Supervisor
	cancel context.CancelFunc
	done   chan struct{}

	mu    sync.Mutex
	lines []string
}

// supervision is c's supervisor, or nil when its opens are not held (the
// daemon prepared none, or the door gave no one to ask).
func (c Child) supervision() (*supervision, error) {
	p := c.Prepared
	if p.Hold == nil || c.Hold == nil || p.Unconfined != "" {
		return nil, nil
	}
	pair, err := holdPair()
	if err != nil {
		return nil, err
	}
	sv := &supervision{parent: pair[0], child: os.NewFile(uintptr(pair[1]), "pathgrant-hold"), done: make(chan struct{})}
	sv.sup = &supervise.Supervisor{Roots: p.Hold.Roots, Granted: p.Hold.Granted, Ask: c.Hold, Say: sv.say}
	return sv, nil
}

func (sv *supervision) say(line string) {
	sv.mu.Lock()
	sv.lines = append(sv.lines, line)
	sv.mu.Unlock()
}

// files puts the child's end at launch.HoldFD of files (the job is at
// launch.JobFD before it).
func (sv *supervision) files(files []*os.File) []*os.File {
	if sv == nil || len(files) != launch.HoldFD {
		return files
	}
	return append(files, sv.child)
}

// start closes the child's end here, once the sandbox started (or failed
// to), and serves the listener its inner step sends until stop.
func (sv *supervision) start(ctx context.Context) {
	if sv == nil {
		return
	}
	sv.child.Close()
	ctx, sv.cancel = context.WithCancel(ctx)
	go func() {
		defer close(sv.done)
		listener, err := supervise.Receive(sv.parent)
		if err != nil {
			return // the inner step said why on the command's stderr, or never ran
		}
		_ = sv.sup.Serve(ctx, listener)
	}()
}

// interrupt ends the waits of the opens held now (Supervisor.Interrupt).
func (sv *supervision) interrupt() {
	if sv != nil {
		sv.sup.Interrupt()
	}
}

// stop ends the supervisor once the sandbox exited, and returns the lines
// it said and the paths of the held opens that failed.
func (sv *supervision) stop() (lines, refused []string) {
	if sv == nil {
		return nil, nil
	}
	if sv.cancel != nil {
		sv.cancel()
		_ = unix.Shutdown(sv.parent, unix.SHUT_RDWR) // a receive still waiting ends
		<-sv.done
	} else {
		sv.child.Close()
	}
	unix.Close(sv.parent)
	sv.mu.Lock()
	defer sv.mu.Unlock()
	return sv.lines, sv.sup.Refused()
}

// holdAsker asks the daemon on socket for a held open's read, presenting
// the command's hold ticket: the front end process's door.
type holdAsker struct {
	socket, ticket, text string
}

func (a holdAsker) AskHold(ctx context.Context, r wire.HoldRequest) (wire.HoldAnswer, error) {
	var out wire.HoldAnswer
	c := wire.Client{Socket: a.socket}
	err := c.Do(ctx, "POST", wire.PathHold, r, &out,
		wire.Header{Name: wire.HeaderCapability, Value: a.ticket}, wire.Header{Name: wire.HeaderCommandHash, Value: launch.CommandHash(a.text)})
	return out, err
}
