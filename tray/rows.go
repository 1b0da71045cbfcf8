package tray

import (
	"cmp"
	"fmt"
	"strconv"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"pathgrant/grants"
	"pathgrant/prompt"
	"pathgrant/wire"
)

func (s *Settings) grantColumns() []column[grants.Grant] {
	return []column[grants.Grant]{
		{title: "Path", width: 260, text: func(g grants.Grant) string { return s.tilde(g.Path) }},
		{title: "Op", width: 90, text: grantOp},
		{title: "Scope", width: 75, text: func(g grants.Grant) string { return string(g.Scope) }},
		{title: "State", width: 95, text: func(g grants.Grant) string { return g.State(time.Now()) }},
		{title: "Expires", width: 105, text: expires, order: byTime(func(g grants.Grant) time.Time { return g.Expires })},
		{title: "Uses", width: 60, text: func(g grants.Grant) string { return strconv.FormatUint(g.UseCount, 10) },
			order: func(a, b grants.Grant) int { return cmp.Compare(a.UseCount, b.UseCount) }},
		{title: "Last used", width: 105, text: func(g grants.Grant) string { return when(g.LastUsed) },
			order: byTime(func(g grants.Grant) time.Time { return g.LastUsed })},
		{title: "Session", width: 200, text: s.grantSession},
	}
}

// grantOp says what a grant allows: the op and whether of a file or a
// folder; a connection's grant names one destination, its "path", and
// is of neither.
func grantOp(g grants.Grant) string {
	if g.Op == wire.OpConnect {
		return string(g.Op)
	}
	return string(g.Op) + " " + string(g.Kind)
}

// grantSession labels the session a grant was approved in; a grant with
// none (a device grant put by the CLI) names its agent when known.
func (s *Settings) grantSession(g grants.Grant) string {
	if g.Session == "" && g.Agent != "" {
		return g.Agent + " · no session"
	}
	return s.book.label(g.Session)
}

// expires says when a grant ends in words: a grant with no end time
// lasts as long as its session, or always.
func expires(g grants.Grant) string {
	switch {
	case !g.Expires.IsZero():
		return when(g.Expires)
	case g.Scope == grants.ScopeDevice:
		return "never"
	case g.Scope == grants.ScopeSession:
		return "session end"
	}
	return "–"
}

// grantAction revokes a live grant; an ended one has nothing to revoke.
func (s *Settings) grantAction(g grants.Grant) (string, func()) {
	if g.State(time.Now()) != "live" {
		return "Ended", nil
	}
	return "Revoke", func() { s.act(func() error { return s.backend.Revoke(g.ID) }) }
}

func (s *Settings) denialColumns() []column[wire.Denial] {
	return []column[wire.Denial]{
		{title: "Session", width: 240, text: func(d wire.Denial) string { return s.book.label(d.Session) }},
		{title: "Op", width: 70, text: func(d wire.Denial) string { return string(d.Op) }},
		{title: "Path", width: 360, text: func(d wire.Denial) string { return s.tilde(d.Path) }},
		{title: "Hits", width: 60, text: func(d wire.Denial) string { return strconv.Itoa(d.Hits) },
			order: func(a, b wire.Denial) int { return cmp.Compare(a.Hits, b.Hits) }},
		{title: "Last hit", width: 105, text: func(d wire.Denial) string { return when(d.LastHit) },
			order: byTime(func(d wire.Denial) time.Time { return d.LastHit })},
		{title: "Denied", width: 105, text: func(d wire.Denial) string { return when(d.Created) },
			order: byTime(func(d wire.Denial) time.Time { return d.Created })},
	}
}

// denialAction lifts a remembered denial: that access asks again.
func (s *Settings) denialAction(d wire.Denial) (string, func()) {
	return "Lift", func() { s.act(func() error { return s.backend.LiftDenial(d.ID) }) }
}

func (s *Settings) auditColumns() []column[grants.Record] {
	return []column[grants.Record]{
		{title: "Time", width: 150, text: func(r grants.Record) string { return r.Time.Local().Format("2006-01-02 15:04:05") },
			order: func(a, b grants.Record) int { return cmp.Compare(a.Seq, b.Seq) }},
		{title: "What", width: 105, text: func(r grants.Record) string { return r.Kind.Label() }},
		{title: "Session", width: 200, text: func(r grants.Record) string { return s.book.label(r.Session) }},
		{title: "Op", width: 60, text: func(r grants.Record) string { return string(r.Op) }},
		{title: "Path", width: 250, text: func(r grants.Record) string { return s.tilde(r.Path) }},
		{title: "Scope", width: 70, text: func(r grants.Record) string { return string(r.Scope) }},
		{title: "Reason", width: 250, text: func(r grants.Record) string { return r.Reason }},
	}
}

func byTime[T any](at func(T) time.Time) func(a, b T) int {
	return func(a, b T) int { return at(a).Compare(at(b)) }
}

func (s *Settings) tilde(path string) string { return prompt.Tilde(path, s.book.home) }

// newRow is a pending list row: a path, a line of details, and a button.
func newRow() fyne.CanvasObject {
	path := widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
	path.Truncation = fyne.TextTruncateEllipsis
	detail := widget.NewLabel("")
	detail.Truncation = fyne.TextTruncateEllipsis
	return container.NewBorder(nil, nil, nil, widget.NewButton("", nil), container.NewVBox(path, detail))
}

func (s *Settings) pendingCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.pending)
}

func (s *Settings) updatePending(i widget.ListItemID, o fyne.CanvasObject) {
	s.mu.Lock()
	if i < 0 || i >= len(s.pending) {
		s.mu.Unlock()
		return
	}
	r := s.pending[i]
	s.mu.Unlock()
	detail := fmt.Sprintf("%s · %s · tool %s · %d waiting · asked %d time(s) · expires %s",
		r.Op, s.book.label(r.Session), orEmpty("", r.Tool), r.Waiting, r.Count, when(r.Expires))
	c := o.(*fyne.Container)
	texts := c.Objects[0].(*fyne.Container).Objects
	texts[0].(*widget.Label).SetText(s.tilde(r.Path))
	texts[1].(*widget.Label).SetText(detail)
	b := c.Objects[1].(*widget.Button)
	b.SetText("Review…")
	b.OnTapped = func() { s.review(r) }
}

func short(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

func orEmpty(prefix, s string) string {
	if s == "" {
		return "–"
	}
	return prefix + s
}

func when(t time.Time) string {
	if t.IsZero() {
		return "–"
	}
	return t.Local().Format("Jan 2 15:04")
}
