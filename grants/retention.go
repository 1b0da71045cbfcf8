package grants

import (
	"encoding/json"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Pruned counts what one Prune removed.
type Pruned struct {
	Sessions int // sessions that ended (or expired) before the cutoff
	Records  int // audit records from before the cutoff
}

// Prune removes what is older than before: sessions that ended, or passed
// their max age, before it, and audit records written before it. The
// store would otherwise grow with every session and check forever. A
// prune that removed anything leaves one prune record with the counts,
// written in the same transaction, so the log says where its history was
// cut. Grants are kept: a device grant outlives the session it was
// approved in.
func (s *Store) Prune(before time.Time) (Pruned, error) {
	var p Pruned
	err := s.update(func(tx *bolt.Tx) (err error) {
		if p.Sessions, err = pruneSessions(tx, before); err != nil {
			return err
		}
		if p.Records, err = pruneAudit(tx, before); err != nil {
			return err
		}
		if p == (Pruned{}) {
			return nil
		}
		return s.appendAudit(tx, Record{Kind: KindPrune, Reason: fmt.Sprintf(
			"pruned %d ended session(s) and %d audit record(s) from before %s",
			p.Sessions, p.Records, before.UTC().Format(time.RFC3339))})
	})
	if err != nil {
		return Pruned{}, fmt.Errorf("prune before %s: %w", before.Format(time.RFC3339), err)
	}
	return p, nil
}

// pruneSessions deletes the sessions that ended before the cutoff; one
// never ended counts as ended when it passed its max age.
func pruneSessions(tx *bolt.Tx, before time.Time) (int, error) {
	var old []Session
	err := tx.Bucket(bucketSessions).ForEach(func(k, v []byte) error {
		var sess Session
		if err := json.Unmarshal(v, &sess); err != nil {
			return fmt.Errorf("decode session %s: %w", k, err)
		}
		end := sess.Ended
		if end.IsZero() {
			end = sess.Expires
		}
		if end.Before(before) {
			old = append(old, sess)
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	for _, sess := range old {
		if sess.Ended.IsZero() {
			if err := tx.Bucket(bucketExpiry).Delete(expiryKey(sess.Expires, expirySession, sess.ID)); err != nil {
				return 0, err
			}
		}
		if err := tx.Bucket(bucketSessions).Delete([]byte(sess.ID)); err != nil {
			return 0, err
		}
	}
	return len(old), nil
}

// pruneAudit deletes the audit records written before the cutoff.
func pruneAudit(tx *bolt.Tx, before time.Time) (int, error) {
	b := tx.Bucket(bucketAudit)
	var keys [][]byte
	err := b.ForEach(func(k, v []byte) error {
		var r Record
		if err := json.Unmarshal(v, &r); err != nil {
			return fmt.Errorf("decode audit record %x: %w", k, err)
		}
		if r.Time.Before(before) {
			keys = append(keys, k)
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	for _, k := range keys {
		if err := b.Delete(k); err != nil {
			return 0, err
		}
	}
	return len(keys), nil
}
