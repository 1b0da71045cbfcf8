package grants

import (
	"bytes"
	"errors"
	"fmt"
	"iter"
	"strings"

	bolt "go.etcd.io/bbolt"
)

// MinPrefix is the shortest id prefix a person may type for a grant, an
// approval request or a remembered denial: short enough to read off a
// table, long enough that a typo rarely names another one.
const MinPrefix = 6

// ErrAmbiguous is a prefix that names more than one id; ErrTooShort one
// shorter than MinPrefix.
var (
	ErrAmbiguous = errors.New("matches more than one")
	ErrTooShort  = errors.New("is too short")
)

// MatchPrefix returns the one id of ids that is, or begins with, prefix.
// An exact id always wins; a shorter prefix than MinPrefix, one matching
// nothing (ErrNotFound) and one matching several (ErrAmbiguous) fail.
func MatchPrefix(prefix string, ids iter.Seq[string]) (string, error) {
	var found []string
	for id := range ids {
		if id == prefix {
			return id, nil
		}
		if strings.HasPrefix(id, prefix) {
			found = append(found, id)
		}
	}
	return onePrefixMatch(prefix, found)
}

func onePrefixMatch(prefix string, found []string) (string, error) {
	switch {
	case len(found) == 1 && len(prefix) >= MinPrefix:
		return found[0], nil
	case len(found) == 0:
		return "", fmt.Errorf("%q: %w", prefix, ErrNotFound)
	case len(prefix) < MinPrefix:
		return "", fmt.Errorf("%q %w: give the whole id or at least %d characters of it", prefix, ErrTooShort, MinPrefix)
	}
	return "", fmt.Errorf("%q %w id: give more characters", prefix, ErrAmbiguous)
}

// ResolveID returns the id of the one grant whose id is, or begins with,
// prefix ("g-" may be left out).
func (s *Store) ResolveID(prefix string) (string, error) {
	var id string
	err := s.view(func(tx *bolt.Tx) (err error) {
		id, err = resolveGrantID(tx, prefix)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("grant %w", err)
	}
	return id, nil
}

// resolveGrantID seeks to prefix in the id-ordered grants bucket and
// reads only the ids that begin with it.
func resolveGrantID(tx *bolt.Tx, prefix string) (string, error) {
	b := tx.Bucket(bucketGrants)
	if b.Get([]byte(prefix)) != nil {
		return prefix, nil
	}
	full := prefix
	if !strings.HasPrefix(full, "g-") {
		full = "g-" + full
	}
	var found []string
	c := b.Cursor()
	for k, _ := c.Seek([]byte(full)); k != nil && bytes.HasPrefix(k, []byte(full)) && len(found) < 2; k, _ = c.Next() {
		found = append(found, string(k))
	}
	return onePrefixMatch(strings.TrimPrefix(prefix, "g-"), found)
}
