package engine

import (
	"fmt"
	"maps"
	"sort"
	"sync"
	"time"

	"pathgrant/grants"
	"pathgrant/guard"
	"pathgrant/wire"
)

// rememberedReason is what an agent is told when the person denied the
// same access for its session: asking again is pointless.
const rememberedReason = "denied by the person for this session: do not retry; it stays denied until the session ends"

// deviceDeniedReason is what an agent is told when the person denied the
// same access on this device: no session may ask for it again.
const deviceDeniedReason = "denied by the person on this device: do not retry; it stays denied until the person lifts it in pathgrant's settings"

// Bounds on the remembered denials. Past a bound the oldest is forgotten:
// this fails closed, since a forgotten denial is never an allow, only a
// prompt again the next time the agent asks.
const (
	maxDenialsPerSession = 256
	maxDeviceDenials     = 4096
)

type denialKey struct {
	session string
	op      guard.Op
	path    string
}

// agentDenialKey finds a denial by the agent process its session is bound
// to: a hook-only agent that presents a new client session id gets a new
// session, but it is the same agent the person denied.
type agentDenialKey struct {
	agent Proc
	op    guard.Op
	path  string
}

// deviceDenialKey finds a device denial whatever the session.
type deviceDenialKey struct {
	op   guard.Op
	path string
}

// denialSet is the daemon's index of the remembered denials: "Deny for
// this session", and "Deny on this device". The store keeps them too
// (Engine.rememberDenial writes through), so a restarted daemon loads
// them back (Engine.loadDenials); the set itself is memory, read at every
// eligible denial.
type denialSet struct {
	mu      sync.Mutex
	byID    map[string]*wire.Denial
	byKey   map[denialKey]*wire.Denial
	byAgent map[agentDenialKey]*wire.Denial
	device  map[deviceDenialKey]*wire.Denial
	agentOf map[string]Proc // denial id -> the agent process it also names
}

func newDenialSet() *denialSet {
	return &denialSet{byID: map[string]*wire.Denial{}, byKey: map[denialKey]*wire.Denial{},
		byAgent: map[agentDenialKey]*wire.Denial{}, device: map[deviceDenialKey]*wire.Denial{}, agentOf: map[string]Proc{}}
}

// add remembers den (a session denial, or a device one when den.Device),
// also for agent when the session is bound to one. An identical denial
// already held is returned instead, with isNew false; dropped are the ids
// the bound made it forget.
func (d *denialSet) add(den wire.Denial, agent Proc) (kept wire.Denial, isNew bool, dropped []string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if old := d.lookup(den); old != nil {
		return *old, false, nil
	}
	if den.Device {
		if len(d.device) >= maxDeviceDenials {
			dropped = d.forgetOldest(func(o *wire.Denial) bool { return o.Device })
		}
	} else if d.count(den.Session) >= maxDenialsPerSession {
		dropped = d.forgetOldest(func(o *wire.Denial) bool { return !o.Device && o.Session == den.Session })
	}
	p := &den
	d.byID[den.ID] = p
	if den.Device {
		d.device[deviceDenialKey{den.Op, den.Path}] = p
		return den, true, dropped
	}
	d.byKey[denialKey{den.Session, den.Op, den.Path}] = p
	if agent != (Proc{}) {
		d.byAgent[agentDenialKey{agent, den.Op, den.Path}], d.agentOf[den.ID] = p, agent
	}
	return den, true, dropped
}

// lookup is the held denial den repeats, or nil. Called with mu held.
func (d *denialSet) lookup(den wire.Denial) *wire.Denial {
	if den.Device {
		return d.device[deviceDenialKey{den.Op, den.Path}]
	}
	return d.byKey[denialKey{den.Session, den.Op, den.Path}]
}

func (d *denialSet) count(session string) int {
	n := 0
	for _, den := range d.byID {
		if !den.Device && den.Session == session {
			n++
		}
	}
	return n
}

// forgetOldest drops the oldest denial pick accepts and returns its id.
func (d *denialSet) forgetOldest(pick func(*wire.Denial) bool) []string {
	var oldest *wire.Denial
	for _, den := range d.byID {
		if pick(den) && (oldest == nil || den.Created.Before(oldest.Created)) {
			oldest = den
		}
	}
	if oldest == nil {
		return nil
	}
	d.drop(oldest)
	return []string{oldest.ID}
}

func (d *denialSet) drop(den *wire.Denial) {
	delete(d.byID, den.ID)
	if den.Device {
		delete(d.device, deviceDenialKey{den.Op, den.Path})
		return
	}
	delete(d.byKey, denialKey{den.Session, den.Op, den.Path})
	if agent, ok := d.agentOf[den.ID]; ok {
		delete(d.byAgent, agentDenialKey{agent, den.Op, den.Path})
		delete(d.agentOf, den.ID)
	}
}

// match reports whether op on path was denied on this device, for sess,
// for a session it runs under (a child cannot escape its parent's
// denial), or for the agent process it is bound to, and counts the hit.
func (d *denialSet) match(sess *session, op guard.Op, path string, now time.Time) (wire.Denial, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	den := d.device[deviceDenialKey{op, path}]
	for s := sess; s != nil && den == nil; s = s.Parent {
		den = d.byKey[denialKey{s.ID, op, path}]
	}
	if den == nil && sess != nil && sess.agent != (Proc{}) {
		den = d.byAgent[agentDenialKey{sess.agent, op, path}]
	}
	if den == nil {
		return wire.Denial{}, false
	}
	den.Hits++
	den.LastHit = now
	return *den, true
}

// deviceDenial is the device denial of op on path, if any, uncounted.
func (d *denialSet) deviceDenial(op guard.Op, path string) (wire.Denial, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if den := d.device[deviceDenialKey{op, path}]; den != nil {
		return *den, true
	}
	return wire.Denial{}, false
}

// list returns every remembered denial, oldest first.
func (d *denialSet) list() []wire.Denial {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make([]wire.Denial, 0, len(d.byID))
	for _, den := range d.byID {
		out = append(out, *den)
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Created.Equal(out[j].Created) {
			return out[i].Created.Before(out[j].Created)
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// lift forgets the denial whose id is, or begins with, prefix.
func (d *denialSet) lift(prefix string) (wire.Denial, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	id, err := grants.MatchPrefix(prefix, maps.Keys(d.byID))
	if err != nil {
		return wire.Denial{}, err
	}
	den := d.byID[id]
	d.drop(den)
	return *den, nil
}

// liftWhere forgets every denial covered accepts and returns them.
func (d *denialSet) liftWhere(covered func(wire.Denial) bool) []wire.Denial {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []wire.Denial
	for _, den := range d.byID {
		if covered(*den) {
			d.drop(den)
			out = append(out, *den)
		}
	}
	return out
}

// endSession forgets the session's denials: they last as long as it.
// Device denials decided in it stay.
func (d *denialSet) endSession(session string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, den := range d.byID {
		if !den.Device && den.Session == session {
			d.drop(den)
		}
	}
}

// forgetSession drops what lives in memory with a session: its remembered
// denials and its refusal counts. It runs when the session ends and when
// an expired one is dropped (the store forgets its session denials when
// it ends the session).
func (s *Engine) forgetSession(id string) {
	s.denials.endSession(id)
	s.refusals.endSession(id)
}

// Denials lists the remembered denials, session and device, for the
// person.
func (s *Engine) Denials() []wire.Denial { return s.denials.list() }

// LiftDenial forgets a remembered denial (id or a unique prefix of at
// least grants.MinPrefix characters), in memory and in the store: the
// next try of that access asks the person again. It is audited.
func (s *Engine) LiftDenial(id string) *Error {
	den, err := s.denials.lift(id)
	if err != nil {
		return prefixError("remembered denial", id, err)
	}
	s.unstoreDenials(den.ID)
	what := "remembered denial lifted by the person"
	if den.Device {
		what = "device denial lifted by the person"
	}
	s.Audit(grants.Record{Kind: grants.KindLift, Session: den.Session, Agent: den.Agent, Op: den.Op, Path: den.Path, Reason: what})
	return nil
}

// unstoreDenials deletes denials from the store. A failure is logged: the
// denial is gone from memory, and a restart would bring it back, a denial
// again (closed, never open).
func (s *Engine) unstoreDenials(ids ...string) {
	for _, id := range ids {
		if err := s.cfg.Store.DeleteDenial(id); err != nil {
			s.log.Error("forget a stored denial", "denial", id, "err", err)
		}
	}
}

// plural is n and the noun, which takes an s unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
