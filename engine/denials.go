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

// maxDenialsPerSession bounds a session's remembered denials; past it the
// oldest is forgotten (it is a denial either way: a forgotten one only
// prompts again).
const maxDenialsPerSession = 256

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

// denialSet holds the remembered denials: "Deny for this session". They
// live in memory with their session, never on disk, and end with it.
type denialSet struct {
	mu      sync.Mutex
	byID    map[string]*wire.Denial
	byKey   map[denialKey]*wire.Denial
	byAgent map[agentDenialKey]*wire.Denial
	agentOf map[string]Proc // denial id -> the agent process it also names
}

func newDenialSet() *denialSet {
	return &denialSet{byID: map[string]*wire.Denial{}, byKey: map[denialKey]*wire.Denial{},
		byAgent: map[agentDenialKey]*wire.Denial{}, agentOf: map[string]Proc{}}
}

// add remembers the denial of r's access for r's session and, when the
// session is bound to an agent process, for that process.
func (d *denialSet) add(r wire.Request, agent Proc, now time.Time) wire.Denial {
	d.mu.Lock()
	defer d.mu.Unlock()
	k := denialKey{r.Session, r.Op, r.Path}
	if old, ok := d.byKey[k]; ok {
		return *old
	}
	if d.count(r.Session) >= maxDenialsPerSession {
		d.forgetOldest(r.Session)
	}
	den := &wire.Denial{ID: newID(), Session: r.Session, Agent: r.Agent, Cwd: r.Cwd, SessionStarted: r.SessionStarted,
		Op: r.Op, Path: r.Path, Request: r.ID, Created: now}
	d.byID[den.ID], d.byKey[k] = den, den
	if agent != (Proc{}) {
		d.byAgent[agentDenialKey{agent, r.Op, r.Path}], d.agentOf[den.ID] = den, agent
	}
	return *den
}

func (d *denialSet) count(session string) int {
	n := 0
	for _, den := range d.byID {
		if den.Session == session {
			n++
		}
	}
	return n
}

func (d *denialSet) forgetOldest(session string) {
	var oldest *wire.Denial
	for _, den := range d.byID {
		if den.Session == session && (oldest == nil || den.Created.Before(oldest.Created)) {
			oldest = den
		}
	}
	if oldest != nil {
		d.drop(oldest)
	}
}

func (d *denialSet) drop(den *wire.Denial) {
	delete(d.byID, den.ID)
	delete(d.byKey, denialKey{den.Session, den.Op, den.Path})
	if agent, ok := d.agentOf[den.ID]; ok {
		delete(d.byAgent, agentDenialKey{agent, den.Op, den.Path})
		delete(d.agentOf, den.ID)
	}
}

// match reports whether op on path was denied for sess, for a session it
// runs under (a child cannot escape its parent's denial), or for the agent
// process it is bound to, and counts the hit.
func (d *denialSet) match(sess *session, op guard.Op, path string, now time.Time) (wire.Denial, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	var den *wire.Denial
	for s := sess; s != nil && den == nil; s = s.Parent {
		den = d.byKey[denialKey{s.ID, op, path}]
	}
	if den == nil && sess.agent != (Proc{}) {
		den = d.byAgent[agentDenialKey{sess.agent, op, path}]
	}
	if den == nil {
		return wire.Denial{}, false
	}
	den.Hits++
	den.LastHit = now
	return *den, true
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

// endSession forgets the session's denials: they last as long as it.
func (d *denialSet) endSession(session string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, den := range d.byID {
		if den.Session == session {
			d.drop(den)
		}
	}
}

// forgetSession drops what lives in memory with a session: its remembered
// denials and its refusal counts. It runs when the session ends and when
// an expired one is dropped.
func (s *Engine) forgetSession(id string) {
	s.denials.endSession(id)
	s.refusals.endSession(id)
}

// Denials lists the remembered denials of every session, for the person.
func (s *Engine) Denials() []wire.Denial { return s.denials.list() }

// LiftDenial forgets a remembered denial (id or a unique prefix of at
// least grants.MinPrefix characters): the next try of that access asks the
// person again. It is audited.
func (s *Engine) LiftDenial(id string) *Error {
	den, err := s.denials.lift(id)
	if err != nil {
		return prefixError("remembered denial", id, err)
	}
	s.Audit(grants.Record{Kind: grants.KindLift, Session: den.Session, Agent: den.Agent, Op: den.Op, Path: den.Path,
		Reason: "remembered denial lifted by the person"})
	return nil
}

// plural is n and the noun, which takes an s unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
