package grants

import (
	"crypto/rand"
	"encoding/json"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// getGrant loads one grant record inside tx.
func getGrant(tx *bolt.Tx, id string) (Grant, error) {
	v := tx.Bucket(bucketGrants).Get([]byte(id))
	if v == nil {
		return Grant{}, fmt.Errorf("grant %s: %w", id, ErrNotFound)
	}
	var g Grant
	if err := json.Unmarshal(v, &g); err != nil {
		return Grant{}, fmt.Errorf("decode grant %s: %w", id, err)
	}
	return g, nil
}

func saveGrant(tx *bolt.Tx, g Grant) error {
	v, err := json.Marshal(g)
	if err != nil {
		return fmt.Errorf("encode grant %s: %w", g.ID, err)
	}
	return tx.Bucket(bucketGrants).Put([]byte(g.ID), v)
}

// insertGrant stores a new grant with every index entry it needs.
func insertGrant(tx *bolt.Tx, g Grant) error {
	if err := saveGrant(tx, g); err != nil {
		return err
	}
	empty := []byte{}
	puts := []struct {
		bucket []byte
		key    []byte
		want   bool
	}{
		{bucketIndex, indexKey(g), true},
		{bucketBySession, sessionKey(g.Session, g.ID), g.Session != ""},
		{bucketExpiry, expiryKey(g.Expires, expiryGrant, g.ID), !g.Expires.IsZero()},
		{bucketDevice, deviceKey(g.Device, g.ID), g.Scope == ScopeDevice},
	}
	for _, p := range puts {
		if !p.want {
			continue
		}
		if err := tx.Bucket(p.bucket).Put(p.key, empty); err != nil {
			return fmt.Errorf("index grant %s: %w", g.ID, err)
		}
	}
	return nil
}

// dropLiveIndexes removes the entries that only live grants have. The
// by-session entry stays so that a session's history can still be listed.
func dropLiveIndexes(tx *bolt.Tx, g Grant) error {
	dels := []struct{ bucket, key []byte }{
		{bucketIndex, indexKey(g)},
		{bucketExpiry, expiryKey(g.Expires, expiryGrant, g.ID)},
		{bucketDevice, deviceKey(g.Device, g.ID)},
	}
	for _, d := range dels {
		if err := tx.Bucket(d.bucket).Delete(d.key); err != nil {
			return fmt.Errorf("unindex grant %s: %w", g.ID, err)
		}
	}
	return nil
}

// newID returns a random grant id (128+ bits from crypto/rand): ids appear
// in prompts and logs, and must not be guessable by an agent.
func newID() string { return "g-" + rand.Text() }
