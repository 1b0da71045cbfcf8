package daemon

import (
	"log/slog"
	"sync"
	"sync/atomic"
)

// Subreaper reaps the orphans that are reparented to this process: on
// Linux, where the daemon is the child subreaper of what its tool calls
// start (subreaper_linux.go). macOS has no child subreaper
// (subreaper_darwin.go): there the Subreaper does nothing.
type Subreaper struct {
	log    *slog.Logger
	reaped atomic.Int64
	stop   chan struct{}
	done   sync.WaitGroup
}

// Stop ends the reaping; on Linux the process stays a subreaper.
func (r *Subreaper) Stop() {
	select {
	case <-r.stop:
	default:
		close(r.stop)
	}
	r.done.Wait()
}
