package tray

import (
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"pathgrant/prompt"
)

// sessionInfo is what the window knows of one session.
type sessionInfo struct {
	agent, cwd string
	started    time.Time // from a request: when the session began
	seen       time.Time // the earliest grant or record of it, when started is unknown
}

// sessionBook labels sessions for the person ("claude · ~/src/app ·
// Dec 4 14:02") instead of their ids. It gathers what the window is
// given: the daemon's sessions (GET /v1/sessions: agent, folder, start),
// pending requests and remembered denials (the same), grants and audit
// records (agent, when first seen) for sessions the daemon no longer
// holds. It keeps what it learnt across reloads: a session that ended
// still has its label.
type sessionBook struct {
	mu   sync.Mutex
	home string
	info map[string]*sessionInfo
}

func newSessionBook(home string) *sessionBook {
	return &sessionBook{home: home, info: map[string]*sessionInfo{}}
}

// note adds what one source says of session id: the first agent and
// folder heard, the start when known, the earliest time seen.
func (b *sessionBook) note(id, agent, cwd string, started, seen time.Time) {
	if id == "" {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	in, ok := b.info[id]
	if !ok {
		in = &sessionInfo{}
		b.info[id] = in
	}
	in.agent = cmpOr(in.agent, agent)
	in.cwd = cmpOr(in.cwd, cwd)
	if in.started.IsZero() {
		in.started = started
	}
	if !seen.IsZero() && (in.seen.IsZero() || seen.Before(in.seen)) {
		in.seen = seen
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// label is session id as the person reads it: agent, project folder and
// start time, as many as are known; "session 1a2b3c4d" when none is.
func (b *sessionBook) label(id string) string {
	if id == "" {
		return "–"
	}
	b.mu.Lock()
	in, ok := b.info[id]
	var info sessionInfo
	if ok {
		info = *in
	}
	b.mu.Unlock()
	var parts []string
	if info.agent != "" {
		parts = append(parts, info.agent)
	}
	if info.cwd != "" {
		parts = append(parts, prompt.Tilde(info.cwd, b.home))
	}
	switch {
	case !info.started.IsZero():
		parts = append(parts, clock(info.started, time.Now()))
	case !info.seen.IsZero():
		parts = append(parts, "since "+clock(info.seen, time.Now()))
	}
	if len(parts) == 0 {
		return "session " + short(id)
	}
	return strings.Join(parts, " · ")
}

// choices are the labels of sessions ids for a picker, sorted, and the
// session each stands for. Two sessions with one label (the same agent in
// the same folder in the same minute) are told apart by their ids.
func (b *sessionBook) choices(ids []string) ([]string, map[string]string) {
	byLabel := map[string]string{}
	count := map[string]int{}
	for _, id := range ids {
		count[b.label(id)]++
	}
	for _, id := range ids {
		l := b.label(id)
		if count[l] > 1 {
			l += " · " + short(id)
		}
		byLabel[l] = id
	}
	return slices.Sorted(maps.Keys(byLabel)), byLabel
}

// ids are every session the book knows.
func (b *sessionBook) ids() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Collect(maps.Keys(b.info))
}

// clock is t in a session label: the time alone today, with the day
// before.
func clock(t, now time.Time) string {
	t, now = t.Local(), now.Local()
	if y, m, d := t.Date(); y == now.Year() && m == now.Month() && d == now.Day() {
		return t.Format("15:04")
	}
	return t.Format("Jan 2 15:04")
}
