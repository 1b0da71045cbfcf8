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
	// EndReason says why an ended session ended.
	EndReason EndReason `json:"end_reason,omitempty"`
	// Process is the process the session ends with (the agent a hook-only
	// session is bound to, or the launcher that registered it), so a
	// restarted daemon can tell whether it is still there.
	Process *Process `json:"process,omitempty"`
	// Spec is the daemon's own record of the session (its roots, kind and
	// token hash), kept so a restarted daemon can adopt a session whose
	// process is still alive. The store neither reads nor checks it.
	Spec json.RawMessage `json:"spec,omitempty"`
}

// Process identifies one process for its whole life: its pid and its
// start time in clock ticks since boot (a pid alone is reused).
type Process struct {
	PID   int32  `json:"pid"`
	Start uint64 `json:"start"`
}

// EndReason says why a session ended; it is stored on the session and on
// each grant that ended with it, and shown in the grant's state.
type EndReason string

// The reasons a session ends.
const (
	// EndReasonAgentExited: the process the session was bound to exited.
	EndReasonAgentExited EndReason = "agent exited"
	// EndReasonSessionEnd: the client or launcher said the session ended.
	EndReasonSessionEnd EndReason = "session end"
	// EndReasonParentEnded: the session's parent session ended.
	EndReasonParentEnded EndReason = "parent ended"
)

// Live reports whether the session has neither ended nor passed its max age.
func (s Session) Live(now time.Time) bool {
	return s.Ended.IsZero() && now.Before(s.Expires)
}

// StartSession registers a session so that grants can be made in it.
// Started, when zero or in the future, is set to now (a daemon gives its
// own registration time, so an adopted session keeps it), and Expires,
// when zero, to now+SessionMaxAge.
// Starting a live session again returns it unchanged; an ended one cannot
// be restarted (ErrSessionEnded).
func (s *Store) StartSession(sess Session) (Session, error) {
	if sess.ID == "" {
		return Session{}, fmt.Errorf("start session: %w: empty id", ErrInvalid)
	}
	now := s.now()
	if sess.Started.IsZero() || sess.Started.After(now) {
		sess.Started = now
	}
	sess.Started, sess.Ended = sess.Started.UTC().Round(0), time.Time{}
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

// EndSession ends a session because its client or launcher said so: see
// EndSessionFor. It returns how many grants ended.
func (s *Store) EndSession(id string) (int, error) {
	ended, err := s.EndSessionFor(id, EndReasonSessionEnd)
	return len(ended), err
}

// EndSessionFor ends a session for why: its session and once grants stop
// serving, each with an expire record saying why, and the session records
// why, and its session denials are forgotten. Device grants and device
// denials decided in it stay. It returns the grants that
// ended; ending an ended session is a no-op.
func (s *Store) EndSessionFor(id string, why EndReason) ([]Grant, error) {
	var ended []Grant
	err := s.update(func(tx *bolt.Tx) (err error) {
		ended, err = s.endSessionTx(tx, id, "session ended ("+string(why)+")", why)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("end session %s (%s): %w", id, why, err)
	}
	s.unwatch(ended)
	return ended, nil
}

// endSessionTx marks the session ended (why, when given, stored with it
// and its grants) and ends its session-bound grants.
func (s *Store) endSessionTx(tx *bolt.Tx, id, reason string, why ...EndReason) ([]Grant, error) {
	sess, err := getSession(tx, id)
	if err != nil || !sess.Ended.IsZero() {
		return nil, err
	}
	now := s.now()
	sess.Ended = now
	if len(why) > 0 {
		sess.EndReason = why[0]
	}
	if err := tx.Bucket(bucketExpiry).Delete(expiryKey(sess.Expires, expirySession, id)); err != nil {
		return nil, err
	}
	if err := putSession(tx, sess); err != nil {
		return nil, err
	}
	if err := endSessionDenials(tx, id); err != nil {
		return nil, err
	}
	return s.endWhere(tx, sessionPrefix(id), func(g Grant) bool { return g.Scope != ScopeDevice },
		EndSessionEnded, KindExpire, reason, sess.EndReason)
}

// LiveSessions returns every session that has neither ended nor passed its
// max age, for a starting daemon to adopt or end.
func (s *Store) LiveSessions() ([]Session, error) {
	now := s.now()
	var out []Session
	err := s.view(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketSessions).ForEach(func(k, v []byte) error {
			var sess Session
			if err := json.Unmarshal(v, &sess); err != nil {
				return fmt.Errorf("decode session %s: %w", k, err)
			}
			if sess.Live(now) {
				out = append(out, sess)
			}
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("list live sessions: %w", err)
	}
	return out, nil
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
