package grants

import (
	"encoding/json"
	"fmt"
	"slices"

	bolt "go.etcd.io/bbolt"

	"pathgrant/wire"
)

// Denial is a remembered denial as the store keeps it: "Deny for this
// session" (ended with its session, in the same transaction) or "Deny on
// this device" (Device: every session, until the person lifts it). Kept
// on disk so that a restarted daemon denies what the agent was told stays
// denied.
type Denial struct {
	wire.Denial
	// Process is the agent process the session was bound to, so a
	// restarted daemon still denies that agent under a new client
	// session id.
	Process *Process `json:"process,omitempty"`
}

// PutDenial stores d, replacing a denial of the same id. A session
// denial needs a live session: one for a session that ended is refused
// (ErrSessionEnded), since it would outlive what it was promised for.
func (s *Store) PutDenial(d Denial) error {
	if d.ID == "" || d.Op == "" || d.Path == "" {
		return fmt.Errorf("store denial: %w: id, op and path are required", ErrInvalid)
	}
	v, err := json.Marshal(d)
	if err != nil {
		return fmt.Errorf("encode denial %s: %w", d.ID, err)
	}
	err = s.update(func(tx *bolt.Tx) error {
		if !d.Device {
			sess, err := getSession(tx, d.Session)
			if err != nil {
				return err
			}
			if !sess.Live(s.now()) {
				return ErrSessionEnded
			}
		}
		return tx.Bucket(bucketDenials).Put([]byte(d.ID), v)
	})
	if err != nil {
		return fmt.Errorf("store denial %s: %w", d.ID, err)
	}
	return nil
}

// Denials lists every stored denial, in no particular order.
func (s *Store) Denials() ([]Denial, error) {
	var out []Denial
	err := s.view(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketDenials).ForEach(func(k, v []byte) error {
			var d Denial
			if err := json.Unmarshal(v, &d); err != nil {
				return fmt.Errorf("decode denial %s: %w", k, err)
			}
			out = append(out, d)
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("list denials: %w", err)
	}
	return out, nil
}

// DeleteDenial forgets the denial with this exact id; an unknown id is
// ErrNotFound.
func (s *Store) DeleteDenial(id string) error {
	err := s.update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketDenials)
		if b.Get([]byte(id)) == nil {
			return ErrNotFound
		}
		return b.Delete([]byte(id))
	})
	if err != nil {
		return fmt.Errorf("delete denial %s: %w", id, err)
	}
	return nil
}

// endSessionDenials drops the session denials of session: they last as
// long as it. Device denials decided in it stay.
func endSessionDenials(tx *bolt.Tx, session string) error {
	b := tx.Bucket(bucketDenials)
	var gone [][]byte
	err := b.ForEach(func(k, v []byte) error {
		var d Denial
		if err := json.Unmarshal(v, &d); err != nil {
			return fmt.Errorf("decode denial %s: %w", k, err)
		}
		if !d.Device && d.Session == session {
			gone = append(gone, append([]byte(nil), k...))
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, k := range gone {
		if err := b.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

// LiftDenial forgets the denial whose id is, or begins with, prefix (at
// least MinPrefix characters), and audits the lift: for a front end on
// the store file while no daemon runs. A running daemon lifts through
// its own index (Engine.LiftDenial), since it holds the denials in
// memory too.
func (s *Store) LiftDenial(prefix string) (Denial, error) {
	var d Denial
	err := s.update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketDenials)
		var ids []string
		err := b.ForEach(func(k, _ []byte) error {
			ids = append(ids, string(k))
			return nil
		})
		if err != nil {
			return err
		}
		id, err := MatchPrefix(prefix, slices.Values(ids))
		if err != nil {
			return err
		}
		if err := json.Unmarshal(b.Get([]byte(id)), &d); err != nil {
			return fmt.Errorf("decode denial %s: %w", id, err)
		}
		return b.Delete([]byte(id))
	})
	if err != nil {
		return Denial{}, fmt.Errorf("lift denial %s: %w", prefix, err)
	}
	what := "remembered denial lifted by the person"
	if d.Device {
		what = "device denial lifted by the person"
	}
	if err := s.Audit(Record{Kind: KindLift, Session: d.Session, Agent: d.Agent, Op: d.Op, Path: d.Path, Reason: what}); err != nil {
		return d, err
	}
	return d, nil
}
