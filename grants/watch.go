package grants

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"pathgrant/guard"
	"sync"

	"github.com/fsnotify/fsnotify"
	bolt "go.etcd.io/bbolt"
)

// watcher keeps fsnotify watches on every live grant's path and parent, so
// a removal, rename or replacement ends the grant as soon as it happens
// rather than at its next use.
type watcher struct {
	fs     *fsnotify.Watcher
	log    *slog.Logger
	mu     sync.Mutex
	refs   map[string]int // watched path -> live grants needing it
	warned bool
}

// identityOps are the events that can change what a path names. Writes and
// attribute changes keep the inode, so they are ignored.
const identityOps = fsnotify.Create | fsnotify.Remove | fsnotify.Rename

// startWatcher watches the live grants and handles events until ctx ends.
// Without inotify the store still works: identity is checked at every use.
func (s *Store) startWatcher(ctx context.Context) error {
	if s.opts.NoWatch {
		return nil
	}
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		s.log.Warn("file watcher unavailable; replacement is noticed at use only", "err", err)
		return nil
	}
	s.watch = &watcher{fs: fw, log: s.log, refs: make(map[string]int)}
	live, err := s.liveGrants()
	if err != nil {
		_ = fw.Close()
		return err
	}
	for _, g := range live {
		s.watchGrant(g)
	}
	s.wg.Add(1)
	go s.watchLoop(ctx)
	return nil
}

func (s *Store) watchLoop(ctx context.Context) {
	defer s.wg.Done()
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-s.watch.fs.Events:
			if !ok {
				return
			}
			if ev.Op&identityOps != 0 {
				s.checkUnder(ev.Name)
			}
		case err, ok := <-s.watch.fs.Errors:
			if !ok {
				return
			}
			s.watchError(err)
		}
	}
}

// watchError handles a watcher error. After an overflow events were lost,
// so every live grant is checked again.
func (s *Store) watchError(err error) {
	s.log.Warn("file watcher error", "err", err)
	if !errors.Is(err, fsnotify.ErrEventOverflow) {
		return
	}
	live, lerr := s.liveGrants()
	if lerr != nil {
		s.log.Error("recheck after watcher overflow failed", "err", lerr)
		return
	}
	for _, g := range live {
		s.invalidateIfReplaced(g.ID)
	}
}

// checkUnder re-checks the live grants at name or below it: an event on a
// parent folder (renamed, removed) concerns every grant beneath.
func (s *Store) checkUnder(name string) {
	var ids []string
	err := s.view(func(tx *bolt.Tx) error {
		ids = liveIDsUnder(tx, name)
		return nil
	})
	if err != nil {
		s.log.Warn("watcher: read grants", "path", name, "err", err)
		return
	}
	for _, id := range ids {
		s.invalidateIfReplaced(id)
	}
}

// liveIDsUnder reads the path index for entries at name and under name/.
func liveIDsUnder(tx *bolt.Tx, name string) []string {
	under := name + "/"
	if name == "/" {
		under = "/"
	}
	var ids []string
	c := tx.Bucket(bucketIndex).Cursor()
	for _, prefix := range [][]byte{append([]byte(name), sep), []byte(under)} {
		for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
			ids = append(ids, lastPart(k))
		}
	}
	return ids
}

// liveGrants returns every grant in the path index.
func (s *Store) liveGrants() ([]Grant, error) {
	var out []Grant
	err := s.view(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketIndex).ForEach(func(k, _ []byte) error {
			g, err := getGrant(tx, lastPart(k))
			if err == nil {
				out = append(out, g)
			}
			return err
		})
	})
	return out, err
}

func watchPaths(g Grant) []string {
	if g.Op == guard.OpConnect { // a destination: nothing on disk to watch
		return nil
	}
	if dir := filepath.Dir(g.Path); dir != g.Path {
		return []string{g.Path, dir}
	}
	return []string{g.Path}
}

// watchGrant adds watches for a new live grant.
func (s *Store) watchGrant(g Grant) {
	w := s.watch
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, p := range watchPaths(g) {
		if w.refs[p]++; w.refs[p] > 1 {
			continue
		}
		if err := w.fs.Add(p); err != nil && !w.warned {
			w.warned = true
			w.log.Warn("cannot watch granted path; replacement is noticed at use", "path", p, "err", err)
		}
	}
}

// unwatch drops the watches of grants that ended.
func (s *Store) unwatch(gs []Grant) {
	w := s.watch
	if w == nil || len(gs) == 0 {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, g := range gs {
		for _, p := range watchPaths(g) {
			if w.refs[p]--; w.refs[p] > 0 {
				continue
			}
			delete(w.refs, p)
			_ = w.fs.Remove(p) // the kernel may have dropped it already
		}
	}
}

func (w *watcher) close() {
	if err := w.fs.Close(); err != nil {
		w.log.Warn("close file watcher", "err", err)
	}
}
