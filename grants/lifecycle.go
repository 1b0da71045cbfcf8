package grants

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	bolt "go.etcd.io/bbolt"

	"pathgrant/wire"
)

// Put records what the user approved and returns the new grant. It records
// the path's identity now, so that a later replacement is noticed, and
// writes the approve audit record in the same transaction.
func (s *Store) Put(n NewGrant) (Grant, error) {
	g, err := s.newGrant(n)
	if err != nil {
		return Grant{}, fmt.Errorf("put %s grant %s %s: %w", n.Scope, n.Op, n.Path, err)
	}
	err = s.update(func(tx *bolt.Tx) error {
		if err := s.bindToSession(tx, &g); err != nil {
			return err
		}
		if err := insertGrant(tx, g); err != nil {
			return err
		}
		why := "approved"
		if n.For > 0 {
			why = "approved for " + wire.FormatFor(n.For)
		}
		rec := grantRecord(KindApprove, g, why)
		rec.Tool, rec.RequestID = n.Tool, n.RequestID
		if err := s.appendAudit(tx, rec); err != nil {
			return err
		}
		if n.Spent {
			v := View{s: s, session: g.Session, tool: n.Tool, requestID: n.RequestID}
			return v.recordUse(tx, &g, g.Created) // ends it: consumed by the calls that waited
		}
		return nil
	})
	if err != nil {
		return Grant{}, fmt.Errorf("put %s grant %s %s: %w", n.Scope, n.Op, n.Path, err)
	}
	if g.Ended == "" {
		s.watchGrant(g)
		s.wakeSweeper()
	}
	return g, nil
}

// newGrant validates n and fills in what the store decides: id, identity,
// device binding and times.
func (s *Store) newGrant(n NewGrant) (Grant, error) {
	if err := n.validate(); err != nil {
		return Grant{}, err
	}
	if n.Scope == ScopeDevice && s.binding == "" {
		return Grant{}, ErrNoDeviceIdentity
	}
	id, err := identityOf(n.Path, n.Kind, n.Op)
	if err != nil {
		return Grant{}, err
	}
	now := s.now()
	g := Grant{
		ID: newID(), Scope: n.Scope, Op: n.Op, Path: n.Path, Kind: n.Kind, Identity: id,
		Session: n.Session, Workflow: n.Workflow, Agent: n.Agent, Created: now,
	}
	if g.Scope == ScopeDevice {
		g.Device = s.binding
	}
	switch {
	case g.Scope == ScopeOnce:
		g.Expires = now.Add(s.opts.OnceTTL)
	case n.For > 0:
		g.Expires = now.Add(n.For) // a session grant's is capped at the session's
	}
	return g, nil
}

// bindToSession refuses a session or once grant for a session that is not
// live, and caps the grant's expiry at the session's.
func (s *Store) bindToSession(tx *bolt.Tx, g *Grant) error {
	if g.Scope == ScopeDevice {
		return nil
	}
	sess, err := getSession(tx, g.Session)
	if err != nil {
		return err
	}
	if !sess.Live(g.Created) {
		return fmt.Errorf("session %s: %w", g.Session, ErrSessionEnded)
	}
	if g.Expires.IsZero() || sess.Expires.Before(g.Expires) {
		g.Expires = sess.Expires
	}
	return nil
}

// Get returns the grant with the given id, whatever its state.
func (s *Store) Get(id string) (Grant, error) {
	var g Grant
	err := s.view(func(tx *bolt.Tx) (err error) {
		g, err = getGrant(tx, id)
		return err
	})
	if err != nil {
		return Grant{}, fmt.Errorf("get grant %s: %w", id, err)
	}
	return g, nil
}

// Revoke ends one grant at the user's request; id may be a unique prefix
// (ResolveID). Revoking a grant that has already ended fails with ErrEnded
// and changes nothing.
func (s *Store) Revoke(id string) error {
	var g Grant
	err := s.update(func(tx *bolt.Tx) (err error) {
		full, err := resolveGrantID(tx, id)
		if err != nil {
			return err
		}
		if g, err = getGrant(tx, full); err != nil {
			return err
		}
		if g.Ended != "" {
			return fmt.Errorf("%w (%s)", ErrEnded, g.Ended)
		}
		return s.endGrant(tx, &g, EndRevoked, KindRevoke, "revoked by user")
	})
	if err != nil {
		return fmt.Errorf("revoke grant %s: %w", id, err)
	}
	s.unwatch([]Grant{g})
	return nil
}

// RevokeSession ends every live grant approved in the session, device
// grants included: it is what the user reaches for when a session
// misbehaved. The session itself stays open. It returns how many ended.
func (s *Store) RevokeSession(session string) (int, error) {
	ended, err := s.RevokeSessionGrants(session)
	return len(ended), err
}

// RevokeSessionGrants is RevokeSession returning the grants it ended, so
// that the daemon can tell each grant's subscribers. All end in one
// transaction, each with its revoke record.
func (s *Store) RevokeSessionGrants(session string) ([]Grant, error) {
	if session == "" {
		return nil, fmt.Errorf("revoke session: %w: empty session", ErrInvalid)
	}
	var ended []Grant
	err := s.update(func(tx *bolt.Tx) (err error) {
		ended, err = s.endWhere(tx, sessionPrefix(session), func(Grant) bool { return true },
			EndRevoked, KindRevoke, "session revoked by user", "")
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("revoke session %s: %w", session, err)
	}
	s.unwatch(ended)
	return ended, nil
}

// endGrant stops g serving and writes its one audit record.
func (s *Store) endGrant(tx *bolt.Tx, g *Grant, end End, kind Kind, reason string) error {
	if err := dropLiveIndexes(tx, *g); err != nil {
		return err
	}
	g.Ended, g.RevokedAt = end, s.now()
	if err := saveGrant(tx, *g); err != nil {
		return err
	}
	return s.appendAudit(tx, grantRecord(kind, *g, reason))
}

// endWhere ends the not yet ended grants of a session that match keep;
// why, when set, is stored on each as its EndReason.
func (s *Store) endWhere(tx *bolt.Tx, prefix []byte, keep func(Grant) bool, end End, kind Kind, reason string, why EndReason) ([]Grant, error) {
	var ids []string
	c := tx.Bucket(bucketBySession).Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		ids = append(ids, lastPart(k))
	}
	var ended []Grant
	for _, id := range ids {
		g, err := getGrant(tx, id)
		if err != nil {
			return nil, err
		}
		if g.Ended != "" || !keep(g) {
			continue
		}
		g.EndReason = why
		if err := s.endGrant(tx, &g, end, kind, reason); err != nil {
			return nil, err
		}
		ended = append(ended, g)
	}
	return ended, nil
}

// Filter selects grants for List. The zero Filter lists every live grant.
type Filter struct {
	Session string // only grants approved in this session
	Scope   Scope  // only this scope
	// IncludeRevoked adds grants that were revoked, consumed, invalidated
	// or ended with their session.
	IncludeRevoked bool
	// IncludeExpired adds grants whose time is up.
	IncludeExpired bool
}

func (f Filter) match(g Grant, now time.Time) bool {
	if f.Scope != "" && g.Scope != f.Scope {
		return false
	}
	switch st := g.State(now); {
	case st == "live":
		return true
	case st == string(EndExpired):
		return f.IncludeExpired
	default:
		return f.IncludeRevoked
	}
}

// List returns the grants f selects, oldest first.
func (s *Store) List(f Filter) ([]Grant, error) {
	now := s.now()
	var out []Grant
	err := s.view(func(tx *bolt.Tx) error {
		return eachGrant(tx, f.Session, func(g Grant) {
			if f.match(g, now) {
				out = append(out, g)
			}
		})
	})
	if err != nil {
		return nil, fmt.Errorf("list grants: %w", err)
	}
	sortGrants(out)
	return out, nil
}

// eachGrant visits every grant, or a session's through its index.
func eachGrant(tx *bolt.Tx, session string, fn func(Grant)) error {
	if session == "" {
		return tx.Bucket(bucketGrants).ForEach(func(k, v []byte) error {
			var g Grant
			if err := json.Unmarshal(v, &g); err != nil {
				return fmt.Errorf("decode grant %s: %w", k, err)
			}
			fn(g)
			return nil
		})
	}
	prefix := sessionPrefix(session)
	c := tx.Bucket(bucketBySession).Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		if err := visit(tx, lastPart(k), fn); err != nil {
			return err
		}
	}
	return nil
}

func visit(tx *bolt.Tx, id string, fn func(Grant)) error {
	g, err := getGrant(tx, id)
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	fn(g)
	return nil
}

func sortGrants(gs []Grant) {
	slices.SortFunc(gs, func(a, b Grant) int {
		return cmp.Or(a.Created.Compare(b.Created), cmp.Compare(a.ID, b.ID))
	})
}
