package grants

import (
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// The checks the daemon owes after confined commands are kept here from
// the moment it prepares a command until the check ran, so that a daemon
// restart (or crash) between the two loses none: the new daemon runs
// what the old one owed. The store neither reads nor checks a record; it
// is the daemon's own (engine).

// PutAfterRun records (or replaces) the owed check id.
func (s *Store) PutAfterRun(id string, rec []byte) error {
	err := s.update(func(tx *bolt.Tx) error { return tx.Bucket(bucketAfterRun).Put([]byte(id), rec) })
	if err != nil {
		return fmt.Errorf("record the check after a command: %w", err)
	}
	return nil
}

// DeleteAfterRun forgets the check id: it ran.
func (s *Store) DeleteAfterRun(id string) error {
	err := s.update(func(tx *bolt.Tx) error { return tx.Bucket(bucketAfterRun).Delete([]byte(id)) })
	if err != nil {
		return fmt.Errorf("forget the check after a command: %w", err)
	}
	return nil
}

// AfterRuns are the owed checks, by id.
func (s *Store) AfterRuns() (map[string][]byte, error) {
	out := map[string][]byte{}
	err := s.view(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketAfterRun).ForEach(func(k, v []byte) error {
			out[string(k)] = append([]byte(nil), v...)
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("read the owed checks: %w", err)
	}
	return out, nil
}
