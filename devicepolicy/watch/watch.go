// Package watch keeps the device policy file current in a running daemon:
// it reloads the file (package devicepolicy parses and checks it) as it
// changes, and keeps the last good policy when a change does not load. It
// is apart from devicepolicy so that what reads the file once (the hook,
// the CLI) does not link fsnotify.
package watch

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"pathgrant/devicepolicy"
)

// settle is how long Watch waits after a change before reloading, so an
// editor's write-rename-chmod burst is read once, complete.
const settle = 100 * time.Millisecond

// Watcher holds the last good policy and reloads it when the file
// changes.
type Watcher struct {
	dir      string
	env      devicepolicy.Env
	log      *slog.Logger
	onChange func(devicepolicy.Policy)

	mu  sync.Mutex
	cur devicepolicy.Policy
}

// Watch loads the policy in dir and keeps reloading it as the file
// changes, until ctx ends. The first load must succeed. A later file that
// does not load is logged and ignored: the last good policy stays in force,
// so a typo never widens or drops what is configured. onChange (may be
// nil) is called with each new good policy. The folder is watched rather
// than the file, because editors replace files by renaming; it is created
// (0700) if missing.
func Watch(ctx context.Context, dir string, env devicepolicy.Env, log *slog.Logger, onChange func(devicepolicy.Policy)) (*Watcher, error) {
	p, err := devicepolicy.Load(dir, env)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("device policy: watch: %w", err)
	}
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("device policy: watch: %w", err)
	}
	if err := fw.Add(dir); err != nil {
		fw.Close()
		return nil, fmt.Errorf("device policy: watch %s: %w", dir, err)
	}
	w := &Watcher{dir: dir, env: env, log: log, onChange: onChange, cur: p}
	go w.loop(ctx, fw)
	return w, nil
}

// Policy is the policy in force: the last one that loaded.
func (w *Watcher) Policy() devicepolicy.Policy {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.cur
}

func (w *Watcher) loop(ctx context.Context, fw *fsnotify.Watcher) {
	defer fw.Close()
	timer := time.NewTimer(0)
	<-timer.C
	for {
		select {
		case <-ctx.Done():
			timer.Stop()
			return
		case ev, ok := <-fw.Events:
			if !ok {
				return
			}
			if name := filepath.Base(ev.Name); name == devicepolicy.TOMLName || name == devicepolicy.JSONName {
				timer.Reset(settle)
			}
		case err, ok := <-fw.Errors:
			if !ok {
				return
			}
			w.log.Warn("device policy: watch", "err", err)
		case <-timer.C:
			w.reload()
		}
	}
}

// reload loads the file again; a bad file keeps the last good policy.
func (w *Watcher) reload() {
	p, err := devicepolicy.Load(w.dir, w.env)
	if err != nil {
		w.log.Error("device policy: the changed file is refused; the previous policy stays in force", "err", err)
		return
	}
	w.mu.Lock()
	w.cur = p
	w.mu.Unlock()
	w.log.Info("device policy: reloaded", "dir", w.dir)
	if w.onChange != nil {
		w.onChange(p)
	}
}
