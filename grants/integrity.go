package grants

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"runtime/debug"
	"syscall"
	"time"

	bolt "go.etcd.io/bbolt"
)

// CorruptError reports a store file that cannot be trusted. Its message
// names the file and tells the user how to move it aside: the store is
// never replaced by an empty one behind their back.
type CorruptError struct {
	Path  string
	Cause error
}

// Error says what is wrong and what to do about it.
func (e *CorruptError) Error() string {
	return fmt.Sprintf("store %s is corrupt (%v): move it aside (mv %s %s.corrupt) and restart",
		e.Path, e.Cause, e.Path, e.Path)
}

// Unwrap exposes the cause.
func (e *CorruptError) Unwrap() error { return e.Cause }

// Is makes errors.Is(err, ErrCorrupt) true.
func (e *CorruptError) Is(target error) bool { return target == ErrCorrupt }

// bbolt's on-disk meta page, as laid out after the 16-byte page header.
const (
	boltMagic     = 0xED0CDAED
	boltVersion   = 2
	metaOff       = 16
	metaSumEnd    = metaOff + 56 // checksum covers the meta fields before it
	metaLen       = metaSumEnd + 8
	noFreelist    = ^uint64(0)
	minPageSize   = 1024
	maxPageSize   = 1 << 24
	lockRetryStep = 25 * time.Millisecond
)

type boltMeta struct {
	pageSize             uint32
	root, freelist, pgid uint64
	txid                 uint64
}

// precheck inspects an existing store before bbolt maps it: owner and mode,
// the lock (so a running daemon is reported as such, not as corruption), and
// the meta pages. bbolt trusts the meta page's size fields, and a truncated
// file would otherwise crash the process with SIGBUS instead of an error.
func precheck(path string, timeout time.Duration) error {
	f, err := openExisting(path, os.O_RDONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := lockProbe(f, timeout); err != nil {
		return err
	}
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("stat store %s: %w", path, err)
	}
	if err := checkMeta(f, fi.Size()); err != nil {
		return &CorruptError{Path: path, Cause: err}
	}
	return nil
}

// lockProbe takes and drops the exclusive lock bbolt uses. Closing f
// releases it; bbolt takes it again right after.
func lockProbe(f *os.File, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			return fmt.Errorf("lock store %s: %w", f.Name(), err)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("open store %s: %w (the file is locked)", f.Name(), ErrAlreadyRunning)
		}
		time.Sleep(lockRetryStep)
	}
}

// checkMeta validates the meta page bbolt would use and that the file is
// long enough to hold every page it claims.
func checkMeta(r io.ReaderAt, size int64) error {
	if size == 0 {
		return errors.New("file is empty")
	}
	m0, err0 := readMeta(r, 0)
	pageSize := int64(m0.pageSize)
	if err0 != nil {
		pageSize = findSecondMeta(r, size)
	}
	var m1 boltMeta
	err1 := errors.New("second meta page not found")
	if pageSize > 0 {
		m1, err1 = readMeta(r, pageSize)
	}
	m, err := pickMeta(m0, err0, m1, err1)
	if err != nil {
		return err
	}
	return checkBounds(m, size)
}

func pickMeta(m0 boltMeta, err0 error, m1 boltMeta, err1 error) (boltMeta, error) {
	switch {
	case err0 != nil && err1 != nil:
		return boltMeta{}, fmt.Errorf("no valid meta page: %v; %v", err0, err1)
	case err1 != nil || (err0 == nil && m0.txid >= m1.txid):
		return m0, nil
	}
	return m1, nil
}

func checkBounds(m boltMeta, size int64) error {
	ps := uint64(m.pageSize)
	if ps < minPageSize || ps > maxPageSize || ps&(ps-1) != 0 {
		return fmt.Errorf("bad page size %d", ps)
	}
	if m.pgid < 2 || m.pgid > uint64(size)/ps {
		return fmt.Errorf("file is truncated: %d bytes, meta page needs %d pages of %d", size, m.pgid, ps)
	}
	if m.root >= m.pgid || (m.freelist != noFreelist && m.freelist >= m.pgid) {
		return fmt.Errorf("meta page points past the end of the data (root %d, freelist %d, pages %d)",
			m.root, m.freelist, m.pgid)
	}
	return nil
}

// findSecondMeta guesses the page size from the second meta page the way
// bbolt does when the first one is damaged.
func findSecondMeta(r io.ReaderAt, size int64) int64 {
	for i := 0; i <= 14; i++ {
		pos := int64(minPageSize) << i
		if pos >= size-minPageSize {
			break
		}
		if m, err := readMeta(r, pos); err == nil && int64(m.pageSize) == pos {
			return pos
		}
	}
	return 0
}

func readMeta(r io.ReaderAt, off int64) (boltMeta, error) {
	var buf [metaLen]byte
	if _, err := r.ReadAt(buf[:], off); err != nil {
		return boltMeta{}, fmt.Errorf("meta page at %d: %w", off, err)
	}
	le := binary.NativeEndian
	if le.Uint32(buf[metaOff:]) != boltMagic {
		return boltMeta{}, fmt.Errorf("meta page at %d: not a bbolt file", off)
	}
	if v := le.Uint32(buf[metaOff+4:]); v != boltVersion {
		return boltMeta{}, fmt.Errorf("meta page at %d: bbolt format version %d", off, v)
	}
	h := fnv.New64a()
	_, _ = h.Write(buf[metaOff:metaSumEnd])
	if h.Sum64() != le.Uint64(buf[metaSumEnd:]) {
		return boltMeta{}, fmt.Errorf("meta page at %d: checksum mismatch", off)
	}
	return boltMeta{
		pageSize: le.Uint32(buf[metaOff+8:]),
		root:     le.Uint64(buf[metaOff+16:]),
		freelist: le.Uint64(buf[metaOff+32:]),
		pgid:     le.Uint64(buf[metaOff+40:]),
		txid:     le.Uint64(buf[metaOff+48:]),
	}, nil
}

// openBolt opens the checked file with bbolt. A fault or panic while bbolt
// reads a damaged file becomes a CorruptError instead of a crash.
func openBolt(path string, timeout time.Duration) (db *bolt.DB, err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			db, err = nil, &CorruptError{Path: path, Cause: fmt.Errorf("%v", r)}
		}
	}()
	db, err = bolt.Open(path, 0o600, &bolt.Options{Timeout: timeout, OpenFile: openExisting})
	var ce *CorruptError
	switch {
	case err == nil, errors.As(err, &ce), errors.Is(err, ErrUnsafeFile):
		return db, err
	case errors.Is(err, bolt.ErrTimeout):
		return nil, fmt.Errorf("open store %s: %w (the file is locked)", path, ErrAlreadyRunning)
	case errors.Is(err, bolt.ErrInvalid), errors.Is(err, bolt.ErrChecksum), errors.Is(err, bolt.ErrVersionMismatch):
		return nil, &CorruptError{Path: path, Cause: err}
	}
	return nil, fmt.Errorf("open store %s: %w", path, err)
}

// verify reads every page once (where a fault is recoverable) and then runs
// bbolt's consistency check. Run once at open: a damaged tree must stop the
// daemon with a clear message, not panic on the first lookup.
func verify(db *bolt.DB) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("reading pages: %v", r)
		}
	}()
	return db.View(func(tx *bolt.Tx) error {
		if err := tx.ForEach(func(_ []byte, b *bolt.Bucket) error { return walkBucket(b) }); err != nil {
			return err
		}
		return firstCheckError(tx)
	})
}

func walkBucket(b *bolt.Bucket) error {
	return b.ForEach(func(k, v []byte) error {
		if v == nil {
			if sub := b.Bucket(k); sub != nil {
				return walkBucket(sub)
			}
		}
		return nil
	})
}

// firstCheckError drains tx.Check (its goroutine blocks until read) and
// returns the first problem it reported.
func firstCheckError(tx *bolt.Tx) error {
	var first error
	for err := range tx.Check() {
		if first == nil {
			first = err
		}
	}
	return first
}
