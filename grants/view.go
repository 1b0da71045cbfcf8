package grants

import (
	"bytes"
	"errors"
	"fmt"
	"iter"
	"slices"
	"time"

	bolt "go.etcd.io/bbolt"

	"pathgrant/guard"
)

// View is the set of grants one session may use: its own session and once
// grants, and this device's device grants. It implements guard.Grants, so
// the guard evaluates a request against exactly what that session holds.
type View struct {
	s         *Store
	session   string
	tool      string
	requestID string
}

var _ guard.Grants = (*View)(nil)

// View returns the grants session may use. An empty session sees only
// device grants.
func (s *Store) View(session string) *View {
	return &View{s: s, session: session}
}

// WithRequest returns a copy of v whose use records name the tool and
// request that used the grants.
func (v *View) WithRequest(tool, requestID string) *View {
	c := *v
	c.tool, c.requestID = tool, requestID
	return &c
}

// Lookup implements guard.Grants. It walks path's ancestors through the
// path index (O(depth), never a scan) and changes nothing it was asked
// about: no use is recorded and nothing is consumed. A candidate whose path
// was replaced since approval does not match, and is invalidated with an
// audit record. Any store error fails closed (returns "").
func (v *View) Lookup(op guard.Op, path string, tree bool) string {
	now := v.s.now()
	var id string
	var suspects []string
	err := v.s.view(func(tx *bolt.Tx) error {
		id, suspects = v.find(tx, op, path, tree, now)
		return nil
	})
	if err != nil {
		v.s.log.Error("grant lookup failed; denying", "op", op, "path", path, "err", err)
		return ""
	}
	for _, sid := range suspects {
		v.s.invalidateIfReplaced(sid)
	}
	return id
}

// find returns a serving grant, preferring any other scope to once so that
// a once grant is not spent while a longer one covers the access, and the
// ids of candidates whose path was replaced.
func (v *View) find(tx *bolt.Tx, op guard.Op, path string, tree bool, now time.Time) (string, []string) {
	var once string
	var suspects []string
	idx := tx.Bucket(bucketIndex).Cursor()
	for p := range lookupPaths(op, path) {
		prefix := indexPrefix(p, op)
		for k, _ := idx.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = idx.Next() {
			g, err := getGrant(tx, lastPart(k))
			if err != nil || !g.Guard().Covers(op, path, tree) || v.refuse(g, now) != nil {
				continue
			}
			if reason, err := replaced(g); reason != "" || err != nil {
				if reason != "" {
					suspects = append(suspects, g.ID)
				}
				continue
			}
			if g.Scope != ScopeOnce {
				return g.ID, suspects
			}
			if once == "" {
				once = g.ID
			}
		}
	}
	return once, suspects
}

// refuse says why g cannot serve this view at now, or nil if it can.
func (v *View) refuse(g Grant, now time.Time) error {
	switch {
	case g.Ended != "":
		return fmt.Errorf("%w (%s)", ErrEnded, g.Ended)
	case g.expired(now):
		return ErrExpired
	case g.Scope == ScopeDevice && (v.s.binding == "" || g.Device != v.s.binding):
		return ErrForeignDevice
	case g.Scope != ScopeDevice && g.Session != v.session:
		return ErrWrongSession
	}
	return nil
}

// errNothingToCommit rolls back a Use that changed nothing.
var errNothingToCommit = errors.New("nothing to commit")

// Use records that the grants were used for an allowed access: last used
// and use count, and a use record each. A once grant is consumed by its
// first use, atomically: of any number of concurrent callers exactly one
// succeeds. Either every id is used or none is; a grant whose path was
// replaced is invalidated and Use fails with ErrIdentityChanged.
func (v *View) Use(ids ...string) error {
	ids = slices.Compact(slices.Sorted(slices.Values(ids)))
	if len(ids) == 0 {
		return nil
	}
	var useErr error
	var ended []Grant
	err := v.s.update(func(tx *bolt.Tx) error {
		now := v.s.now()
		gs, invalid, err := v.checkUse(tx, ids, now)
		useErr, ended = err, invalid
		if useErr != nil && len(invalid) == 0 {
			return errNothingToCommit
		}
		if useErr != nil {
			return nil // keep the invalidations, record no use
		}
		err = v.recordUses(tx, gs, now)
		ended = consumed(gs)
		return err
	})
	v.s.unwatch(ended)
	if err != nil && !errors.Is(err, errNothingToCommit) {
		useErr = err
	}
	if useErr != nil {
		return fmt.Errorf("use grants: %w", useErr)
	}
	return nil
}

// checkUse loads the grants and checks each can serve this view now,
// invalidating (inside tx) those whose path was replaced.
func (v *View) checkUse(tx *bolt.Tx, ids []string, now time.Time) ([]Grant, []Grant, error) {
	var gs, invalid []Grant
	var errs []error
	for _, id := range ids {
		g, err := getGrant(tx, id)
		if err == nil {
			err = v.refuse(g, now)
		}
		if err == nil {
			err = v.s.invalidateTx(tx, &g)
			if errors.Is(err, ErrIdentityChanged) {
				invalid = append(invalid, g)
			}
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("grant %s: %w", id, err))
			continue
		}
		gs = append(gs, g)
	}
	return gs, invalid, errors.Join(errs...)
}

func (v *View) recordUses(tx *bolt.Tx, gs []Grant, now time.Time) error {
	for i := range gs {
		if err := v.recordUse(tx, &gs[i], now); err != nil {
			return err
		}
	}
	return nil
}

// recordUse bumps g's use and writes its one use record; a once grant ends
// (consumed) in the same step.
func (v *View) recordUse(tx *bolt.Tx, g *Grant, now time.Time) error {
	g.LastUsed = now
	g.UseCount++
	reason := "used"
	if g.Scope == ScopeOnce {
		if err := dropLiveIndexes(tx, *g); err != nil {
			return err
		}
		g.Ended, g.RevokedAt, reason = EndConsumed, now, "used once and consumed"
	}
	if err := saveGrant(tx, *g); err != nil {
		return err
	}
	rec := grantRecord(KindUse, *g, reason)
	if v.session != g.Session {
		rec.Workflow, rec.Agent = "", ""
	}
	rec.Session, rec.Tool, rec.RequestID = v.session, v.tool, v.requestID
	return v.s.appendAudit(tx, rec)
}

func consumed(gs []Grant) []Grant {
	var out []Grant
	for _, g := range gs {
		if g.Ended == EndConsumed {
			out = append(out, g)
		}
	}
	return out
}

// lookupPaths are the paths whose grants may cover op on path: its
// ancestors for a file access, the destination itself for a connection.
func lookupPaths(op guard.Op, path string) iter.Seq[string] {
	if op == guard.OpConnect {
		return func(yield func(string) bool) { yield(path) }
	}
	return guard.Ancestors(path)
}
