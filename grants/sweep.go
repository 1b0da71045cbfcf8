package grants

import (
	"context"
	"errors"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"
)

// sweep ends what is due at the store's clock: grants past their expiry
// (one expire record each) and sessions past their max age (their session
// and once grants end with them). Lookups already refuse expired grants;
// sweeping makes the expiry durable, audited and visible. It returns how
// many grants ended.
func (s *Store) sweep() (int, error) {
	now := s.now()
	var ended []Grant
	err := s.update(func(tx *bolt.Tx) (err error) {
		ended, err = s.sweepTx(tx, now)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("sweep: %w", err)
	}
	s.unwatch(ended)
	return len(ended), nil
}

func (s *Store) sweepTx(tx *bolt.Tx, now time.Time) ([]Grant, error) {
	var ended []Grant
	for _, k := range dueKeys(tx, now) {
		_, kind, id, _ := parseExpiryKey(k)
		if err := tx.Bucket(bucketExpiry).Delete(k); err != nil {
			return nil, err
		}
		gs, err := s.expire(tx, kind, id)
		if err != nil {
			return nil, err
		}
		ended = append(ended, gs...)
	}
	return ended, nil
}

// dueKeys lists expiry entries at or before now; the bucket is sorted by
// time, so this reads only what is due.
func dueKeys(tx *bolt.Tx, now time.Time) [][]byte {
	var keys [][]byte
	c := tx.Bucket(bucketExpiry).Cursor()
	for k, _ := c.First(); k != nil; k, _ = c.Next() {
		at, _, _, ok := parseExpiryKey(k)
		if ok && at.After(now) {
			break
		}
		keys = append(keys, append([]byte(nil), k...))
	}
	return keys
}

func (s *Store) expire(tx *bolt.Tx, kind byte, id string) ([]Grant, error) {
	switch kind {
	case expirySession:
		gs, err := s.endSessionTx(tx, id, "session reached its max age")
		if errors.Is(err, ErrNotFound) {
			return nil, nil // a stale entry: nothing left to end
		}
		return gs, err
	case expiryGrant:
		g, err := getGrant(tx, id)
		if errors.Is(err, ErrNotFound) {
			return nil, nil
		}
		if err != nil || g.Ended != "" {
			return nil, err
		}
		if err := s.endGrant(tx, &g, EndExpired, KindExpire, "expired"); err != nil {
			return nil, err
		}
		return []Grant{g}, nil
	}
	return nil, nil
}

// startSweeper runs sweep every SweepEvery until ctx ends, and at once
// when something falls due before that (a grant limited to a few
// minutes), so it ends on time, audited, not up to a minute later.
func (s *Store) startSweeper(ctx context.Context) {
	if s.opts.SweepEvery <= 0 {
		return
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		t := time.NewTimer(s.untilNextSweep())
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-s.wake:
			case <-t.C:
				if _, err := s.sweep(); err != nil {
					s.log.Error("sweep failed", "err", err)
				}
			}
			t.Reset(s.untilNextSweep())
		}
	}()
}

// untilNextSweep is SweepEvery, or less when an expiry falls due sooner.
func (s *Store) untilNextSweep() time.Duration {
	next := s.opts.SweepEvery
	_ = s.view(func(tx *bolt.Tx) error {
		k, _ := tx.Bucket(bucketExpiry).Cursor().First()
		if at, _, _, ok := parseExpiryKey(k); k != nil && ok {
			next = min(next, max(at.Sub(s.now()), 0)+10*time.Millisecond)
		}
		return nil
	})
	return next
}

// wakeSweeper makes the sweeper look again at what falls due next.
func (s *Store) wakeSweeper() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}
