package tray

import (
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"pathgrant/grants"
)

// allFilter is the choice that filters nothing.
const allFilter = "All"

// The grant state filter: live grants (the default), ended ones (revoked,
// expired, used up, invalidated, or ended with their session, which says
// why: "ended (agent exited)"), or all.
const (
	stateLive  = "Live"
	stateEnded = "Ended"
)

// filters are what the bars select, kept under the window's lock: the
// reload reads them off the UI goroutine.
type filters struct {
	state        string
	grantQuery   string
	auditQuery   string
	auditSession string // a session id; empty: every session
	auditKind    grants.Kind
}

// bars are the widgets above the grants and audit tables.
type bars struct {
	stateIs, sessionPick, auditSession, kind *widget.Select
	grantSearch, auditSearch                 *widget.Entry
	// sessionIDs maps a picker's label to its session; UI goroutine only.
	sessionIDs map[string]string
}

func (s *Settings) grantsBar() fyne.CanvasObject {
	b := &s.bars
	b.stateIs = widget.NewSelect([]string{stateLive, stateEnded, allFilter}, nil)
	b.stateIs.SetSelected(stateLive)
	b.stateIs.OnChanged = func(v string) { s.setFilter(func(f *filters) { f.state = v }) }
	b.sessionPick = widget.NewSelect(nil, nil)
	b.sessionPick.PlaceHolder = "Session…"
	revokeAll := widget.NewButton(LabelRevokeSession, func() {
		if sess := b.sessionIDs[b.sessionPick.Selected]; sess != "" {
			s.act(func() error { _, err := s.backend.RevokeSession(sess); return err })
		}
	})
	b.grantSearch = searchEntry("Search path, session…", func(q string) {
		s.setFilter(func(f *filters) { f.grantQuery = q })
	})
	left := container.NewHBox(widget.NewLabel("Show"), b.stateIs, b.sessionPick, revokeAll)
	var right fyne.CanvasObject
	if s.canAsk() {
		right = widget.NewButton(LabelNewGrant, func() { s.askDialog(TitleNewGrant, "") })
	}
	return container.NewBorder(nil, nil, left, right, b.grantSearch)
}

func (s *Settings) auditBar() fyne.CanvasObject {
	b := &s.bars
	b.auditSession = widget.NewSelect([]string{allFilter}, nil)
	b.auditSession.SetSelected(allFilter)
	b.auditSession.OnChanged = func(v string) {
		s.setFilter(func(f *filters) { f.auditSession = b.sessionIDs[v] })
		s.background(s.Reload)
	}
	labels, byLabel := kindChoices()
	b.kind = widget.NewSelect(labels, nil)
	b.kind.SetSelected(allFilter)
	b.kind.OnChanged = func(v string) {
		s.setFilter(func(f *filters) { f.auditKind = byLabel[v] })
		s.background(s.Reload)
	}
	b.auditSearch = searchEntry("Search path, reason…", func(q string) {
		s.setFilter(func(f *filters) { f.auditQuery = q })
	})
	export := widget.NewButton(LabelExport, s.export)
	return container.NewBorder(nil, nil, container.NewHBox(widget.NewLabel("Session"), b.auditSession,
		widget.NewLabel("Kind"), b.kind), export, b.auditSearch)
}

// kindChoices are the audit kinds by label ("wrong code", "refused"),
// the order grants.Kinds gives, after "All".
func kindChoices() ([]string, map[string]grants.Kind) {
	labels := []string{allFilter}
	byLabel := map[string]grants.Kind{}
	for _, k := range grants.Kinds() {
		labels = append(labels, k.Label())
		byLabel[k.Label()] = k
	}
	return labels, byLabel
}

func searchEntry(placeholder string, changed func(string)) *widget.Entry {
	e := widget.NewEntry()
	e.SetPlaceHolder(placeholder)
	e.OnChanged = changed
	return e
}

// setSessions offers the grants' sessions to "Revoke all of session" and
// every session known to the audit filter, by label. UI goroutine only.
func (b *bars) setSessions(book *sessionBook, grantSessions []string) {
	labels, byLabel := book.choices(grantSessions)
	all, allByLabel := book.choices(book.ids())
	b.sessionIDs = allByLabel
	for l, id := range byLabel {
		b.sessionIDs[l] = id
	}
	b.sessionPick.SetOptions(labels)
	b.auditSession.SetOptions(append([]string{allFilter}, all...))
}

// setFilter changes the filters and shows the rows they select now; a
// filter the backend applies also needs a reload.
func (s *Settings) setFilter(change func(*filters)) {
	s.mu.Lock()
	change(&s.filter)
	s.mu.Unlock()
	s.applyFilters()
	s.grants.Widget.Refresh()
	s.audit.Widget.Refresh()
}

// applyFilters sets the tables' rows from what the backend gave and the
// filters.
func (s *Settings) applyFilters() {
	s.mu.Lock()
	f := s.filter
	gs := filterGrants(s.allGrants, f.state, time.Now())
	recs := s.records
	s.mu.Unlock()
	s.grants.set(search(gs, s.grants.cols, f.grantQuery))
	s.audit.set(search(recs, s.audit.cols, f.auditQuery))
}

func (s *Settings) auditFilter() grants.AuditFilter {
	s.mu.Lock()
	defer s.mu.Unlock()
	return grants.AuditFilter{Session: s.filter.auditSession, Kind: s.filter.auditKind}
}

// filterGrants returns the grants the state filter shows at now.
func filterGrants(gs []grants.Grant, filter string, now time.Time) []grants.Grant {
	var out []grants.Grant
	for _, g := range gs {
		live := g.State(now) == "live"
		if filter == allFilter || live == (filter == stateLive) {
			out = append(out, g)
		}
	}
	return out
}

// search keeps the rows one of whose columns contains query, ignoring
// case: what the person reads is what they search.
func search[T any](rows []T, cols []column[T], query string) []T {
	q := strings.ToLower(strings.TrimSpace(query))
	if q == "" {
		return rows
	}
	var out []T
	for _, r := range rows {
		for _, c := range cols {
			if strings.Contains(strings.ToLower(c.text(r)), q) {
				out = append(out, r)
				break
			}
		}
	}
	return out
}
