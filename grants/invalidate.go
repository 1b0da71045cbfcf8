package grants

import (
	"errors"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// invalidateTx compares g's path with its approved identity inside tx. If
// the path was removed or replaced, g ends (invalidated) with one audit
// record saying why, and ErrIdentityChanged is returned. If the check
// itself fails, that error is returned and g is left alone.
func (s *Store) invalidateTx(tx *bolt.Tx, g *Grant) error {
	reason, err := replaced(*g)
	if err != nil {
		return fmt.Errorf("check identity of %s: %w", g.Path, err)
	}
	if reason == "" {
		return nil
	}
	if err := s.endGrant(tx, g, EndInvalidated, KindInvalidate, reason); err != nil {
		return err
	}
	s.log.Info("grant invalidated", "grant", g.ID, "path", g.Path, "reason", reason)
	return ErrIdentityChanged
}

// invalidateIfReplaced re-checks one live grant in its own transaction.
// The watcher and Lookup both call it; because the check and the end
// happen in one transaction, a grant is invalidated (and audited) once.
func (s *Store) invalidateIfReplaced(id string) {
	var g Grant
	var changed bool
	err := s.update(func(tx *bolt.Tx) (err error) {
		if g, err = getGrant(tx, id); err != nil || g.Ended != "" {
			return err
		}
		err = s.invalidateTx(tx, &g)
		if errors.Is(err, ErrIdentityChanged) {
			changed, err = true, nil // commit the invalidation
		}
		return err
	})
	switch {
	case err != nil && !errors.Is(err, ErrNotFound):
		s.log.Warn("cannot check granted path", "grant", id, "err", err)
	case changed:
		s.unwatch([]Grant{g})
	}
}
