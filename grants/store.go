package grants

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Defaults for Options fields left zero.
const (
	DefaultOnceTTL       = 10 * time.Minute
	DefaultSessionMaxAge = 24 * time.Hour
	DefaultLockTimeout   = 500 * time.Millisecond
)

// Options tune a Store. The zero value is what the daemon uses; tests set
// the clock and the machine identity here instead of in globals.
type Options struct {
	// MachineID replaces /etc/machine-id in the device binding, so a test
	// can play the same store on another machine.
	MachineID string
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// OnceTTL bounds how long an unused once grant waits (default 10 min).
	OnceTTL time.Duration
	// SessionMaxAge bounds a session that is never ended (default 24 h).
	SessionMaxAge time.Duration
	// LockTimeout is how long Open waits for another process to release
	// the store before failing with ErrAlreadyRunning (default 500 ms).
	LockTimeout time.Duration
	// NoWatch disables the fsnotify watcher (the CLI does not need it);
	// identity is still checked at every lookup and use.
	NoWatch bool
	// NoCreate makes Open fail (wrapping fs.ErrNotExist) instead of
	// creating a missing store.
	NoCreate bool
	// SweepEvery, when positive, ends what is due (expired grants and
	// sessions) in the background at this interval until Close.
	SweepEvery time.Duration
	// Logger receives warnings; nil means slog.Default().
	Logger *slog.Logger
}

func (o Options) withDefaults() Options {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.OnceTTL <= 0 {
		o.OnceTTL = DefaultOnceTTL
	}
	if o.SessionMaxAge <= 0 {
		o.SessionMaxAge = DefaultSessionMaxAge
	}
	if o.LockTimeout <= 0 {
		o.LockTimeout = DefaultLockTimeout
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return o
}

// Store is the durable authority on what has been granted and the audit
// trail of why. It is safe for concurrent use; one process owns the file.
type Store struct {
	db      *bolt.DB
	path    string
	opts    Options
	log     *slog.Logger
	binding string // "" when this machine has no identity
	watch   *watcher
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	wake    chan struct{} // a grant due sooner than the sweeper's next run
	once    sync.Once
	err     error
}

// Open opens the store at path, creating it (folder 0700, file 0600) when
// missing unless NoCreate is set. It refuses an unsafe or corrupt file and
// fails within about a second if another process holds it.
func Open(path string, opts Options) (*Store, error) {
	if path == "" {
		return nil, fmt.Errorf("open store: %w: empty path", ErrInvalid)
	}
	path, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	o := opts.withDefaults()
	if err := ensureStore(path, o); err != nil {
		return nil, err
	}
	db, err := openBolt(path, o.LockTimeout)
	if err != nil {
		return nil, err
	}
	s := &Store{db: db, path: path, opts: o, log: o.Logger.With("store", path), wake: make(chan struct{}, 1)}
	if err := s.setup(); err != nil {
		_ = db.Close()
		return nil, err
	}
	return s, nil
}

// ensureStore prepares the folder, creates a missing store atomically and
// prechecks an existing one.
func ensureStore(path string, o Options) error {
	_, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) && o.NoCreate {
		return fmt.Errorf("open store %s: %w", path, err)
	}
	if err := prepareDir(filepath.Dir(path)); err != nil {
		return fmt.Errorf("open store %s: %w", path, err)
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := createStore(path, o.LockTimeout); err != nil {
			return err
		}
	case err != nil:
		return fmt.Errorf("open store %s: %w", path, err)
	}
	return precheck(path, o.LockTimeout)
}

// setup validates the opened file, upgrades its schema, binds the device
// and starts the background work.
func (s *Store) setup() error {
	if err := verify(s.db); err != nil {
		return &CorruptError{Path: s.path, Cause: err}
	}
	if err := s.upgrade(); err != nil {
		return err
	}
	if err := s.bindDevice(); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	if err := s.startWatcher(ctx); err != nil {
		cancel()
		return err
	}
	s.startSweeper(ctx)
	return nil
}

func (s *Store) upgrade() error {
	var need bool
	err := s.view(func(tx *bolt.Tx) (err error) {
		need, err = needsUpgrade(tx, migrations)
		return err
	})
	if errors.Is(err, errNoSchema) {
		return &CorruptError{Path: s.path, Cause: err}
	}
	if err == nil && need {
		err = s.update(func(tx *bolt.Tx) error { return migrate(tx, migrations) })
	}
	if err != nil {
		return fmt.Errorf("open store %s: %w", s.path, err)
	}
	return nil
}

// Path returns the store file's absolute path.
func (s *Store) Path() string { return s.path }

// Close stops the watcher and the sweeper, waits for them, and closes the
// file. It is safe to call more than once.
func (s *Store) Close() error {
	s.once.Do(func() {
		s.cancel()
		if s.watch != nil {
			s.watch.close()
		}
		s.wg.Wait()
		if err := s.db.Close(); err != nil {
			s.err = fmt.Errorf("close store %s: %w", s.path, err)
		}
	})
	return s.err
}

func (s *Store) now() time.Time { return s.opts.Now().UTC().Round(0) }

// update and view run a transaction and turn a bbolt panic (a damaged page
// met after open) into an error, so a lookup fails closed instead of
// crashing the daemon.
func (s *Store) update(fn func(*bolt.Tx) error) (err error) {
	defer s.recoverTx(&err)
	return s.db.Update(fn)
}

func (s *Store) view(fn func(*bolt.Tx) error) (err error) {
	defer s.recoverTx(&err)
	return s.db.View(fn)
}

func (s *Store) recoverTx(err *error) {
	if r := recover(); r != nil {
		s.log.Error("store transaction panicked", "panic", r, "stack", string(debug.Stack()))
		*err = &CorruptError{Path: s.path, Cause: fmt.Errorf("%v", r)}
	}
}
