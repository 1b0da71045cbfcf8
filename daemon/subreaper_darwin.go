package daemon

import "log/slog"

// StartSubreaper says once that the daemon is no subreaper on macOS and
// returns a Subreaper that reaps nothing (launchd reaps orphans); it
// never fails.
func StartSubreaper(log *slog.Logger) (*Subreaper, error) {
	log.Info("processes that tool calls detach are not kept below the daemon", "why", MacDetachedGap)
	return &Subreaper{log: log, stop: make(chan struct{})}, nil
}
