package grants

import (
	"encoding/json"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Session is an agent session as the store knows it: session and once
// grants serve only it, and stop when it ends.
type Session struct {
	ID       string    `json:"id"`
	Workflow string    `json:"workflow,omitempty"`
	Agent    string    `json:"agent,omitempty"`
	Parent   string    `json:"parent,omitempty"`
	Started  time.Time `json:"started"`
	Expires  time.Time `json:"expires"`
	Ended    time.Time `json:"ended,omitzero"`
}

// Live reports whether the session has neither ended nor passed its max age.
func (s Session) Live(now time.Time) bool {
	return s.Ended.IsZero() && now.Before(s.Expires)
}

// StartSession registers a session so that grants can be made in it.
// Started is set to now and Expires, when zero, to now+SessionMaxAge.
// Starting a live session again returns it unchanged; an ended one cannot
// be restarted (ErrSessionEnded).
func (s *Store) StartSession(sess Session) (Session, error) {
	if sess.ID == "" {
		return Session{}, fmt.Errorf("start session: %w: empty id", ErrInvalid)
	}
	now := s.now()
	sess.Started, sess.Ended = now, time.Time{}
	if sess.Expires.IsZero() {
		sess.Expires = now.Add(s.opts.SessionMaxAge)
	}
	if !sess.Expires.After(now) {
		return Session{}, fmt.Errorf("start session %s: %w: expires in the past", sess.ID, ErrInvalid)
	}
	err := s.update(func(tx *bolt.Tx) error {
		old, err := getSession(tx, sess.ID)
		if err == nil {
			sess = old
			if !old.Live(now) {
				return ErrSessionEnded
			}
			return nil
		}
		return putSession(tx, sess)
	})
	if err != nil {
		return Session{}, fmt.Errorf("start session %s: %w", sess.ID, err)
	}
	return sess, nil
}

// loadSession returns the session with the given id.
func (s *Store) loadSession(id string) (Session, error) {
	var sess Session
	err := s.view(func(tx *bolt.Tx) (err error) {
		sess, err = getSession(tx, id)
		return err
	})
	if err != nil {
		return Session{}, fmt.Errorf("get session %s: %w", id, err)
	}
	return sess, nil
}

// EndSession ends a session: its session and once grants stop serving, each
// with an expire record. Device grants approved in it stay. It returns how
// many grants ended; ending an ended session is a no-op.
func (s *Store) EndSession(id string) (int, error) {
	var ended []Grant
	err := s.update(func(tx *bolt.Tx) (err error) {
		ended, err = s.endSessionTx(tx, id, "session ended")
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("end session %s: %w", id, err)
	}
	s.unwatch(ended)
	return len(ended), nil
}

// endSessionTx marks the session ended and ends its session-bound grants.
func (s *Store) endSessionTx(tx *bolt.Tx, id, reason string) ([]Grant, error) {
	sess, err := getSession(tx, id)
	if err != nil || !sess.Ended.IsZero() {
		return nil, err
	}
	now := s.now()
	sess.Ended = now
	if err := tx.Bucket(bucketExpiry).Delete(expiryKey(sess.Expires, expirySession, id)); err != nil {
		return nil, err
	}
	if err := putSession(tx, sess); err != nil {
		return nil, err
	}
	return s.endWhere(tx, sessionPrefix(id), func(g Grant) bool { return g.Scope != ScopeDevice },
		EndSessionEnded, KindExpire, reason)
}

func getSession(tx *bolt.Tx, id string) (Session, error) {
	v := tx.Bucket(bucketSessions).Get([]byte(id))
	if v == nil {
		return Session{}, fmt.Errorf("session %s: %w", id, ErrNotFound)
	}
	var sess Session
	if err := json.Unmarshal(v, &sess); err != nil {
		return Session{}, fmt.Errorf("decode session %s: %w", id, err)
	}
	return sess, nil
}

func putSession(tx *bolt.Tx, sess Session) error {
	v, err := json.Marshal(sess)
	if err != nil {
		return fmt.Errorf("encode session %s: %w", sess.ID, err)
	}
	if err := tx.Bucket(bucketSessions).Put([]byte(sess.ID), v); err != nil {
		return err
	}
	if !sess.Ended.IsZero() {
		return nil
	}
	return tx.Bucket(bucketExpiry).Put(expiryKey(sess.Expires, expirySession, sess.ID), []byte{})
}
