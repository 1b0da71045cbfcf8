package tray

import (
	"os"
	"slices"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"pathgrant/grants"
	"pathgrant/wire"
)

// SettingsTitle is the settings window's title.
const SettingsTitle = "pathgrant: grants and audit"

// Tab titles.
const (
	TabGrants  = "Grants"
	TabDenials = "Remembered denials"
	TabAudit   = "Audit"
	TabPending = "Pending"
)

// The settings window's buttons and dialogs, by the labels a person and
// the e2e tests read.
const (
	LabelNewGrant      = "New grant…"
	LabelEdit          = "Edit…"
	LabelRevoke        = "Revoke"
	LabelRevokeSession = "Revoke all of session"
	LabelLift          = "Lift"
	LabelAllow         = "Allow…"
	LabelAsk           = "Ask"
	LabelExport        = "Export JSON lines…"
	TitleDetails       = "Details"
	TitleNewGrant      = "New grant"
	TitleEditGrant     = "Edit grant"
)

// refreshEvery is how often an open settings window reloads, so that
// changes made through the CLI or by expiry show up without reopening.
const refreshEvery = 2 * time.Second

// Settings is the grants, remembered denials, audit and pending window.
// Its tables' columns grow with the window and resize by their header's
// grip; a row selected opens in full (the details view).
type Settings struct {
	Win     fyne.Window
	backend Backend
	review  func(wire.Request)
	// background runs backend calls off the UI goroutine; tests make it
	// synchronous.
	background func(func())
	book       *sessionBook

	mu        sync.Mutex
	allGrants []grants.Grant // every grant the backend has, live or ended
	records   []grants.Record
	pending   []wire.Request
	filter    filters

	grants      *table[grants.Grant]
	denials     *table[wire.Denial]
	audit       *table[grants.Record]
	pendingList *widget.List
	bars        bars
	tabs        *container.AppTabs
	details     dialog.Dialog // the details view last opened
	asking      dialog.Dialog // the New grant… or Edit… form last opened
	notice      *widget.Label // hidden unless SetNotice
	status      *widget.Label
	stop        chan struct{}
	stopped     chan struct{}
}

// NewSettings builds the window; review opens a prompt for a pending
// request. Call Show to display it.
func NewSettings(a fyne.App, b Backend, review func(wire.Request)) *Settings {
	home, _ := os.UserHomeDir()
	s := &Settings{Win: a.NewWindow(SettingsTitle), backend: b, review: review, status: widget.NewLabel(""),
		background: func(f func()) { go f() }, book: newSessionBook(home), filter: filters{state: stateLive}}
	s.grants = newTable(s.grantColumns(), s.grantActions, 2)
	s.grants.open = func(g grants.Grant) { s.openDetails(s.grantDetails(g), s.grantActions(g)) }
	s.denials = newTable(s.denialColumns(), s.denialActions, 1)
	s.denials.open = func(d wire.Denial) { s.openDetails(s.denialDetails(d), s.denialActions(d)) }
	s.audit = newTable(s.auditColumns(), s.auditActions, 1)
	s.audit.open = func(r grants.Record) { s.openDetails(s.auditDetails(r), s.auditActions(r)) }
	s.audit.desc = true // newest first
	s.pendingList = widget.NewList(s.pendingCount, newRow, s.updatePending)
	s.notice = widget.NewLabel("")
	s.notice.Wrapping = fyne.TextWrapWord
	s.notice.Importance = widget.WarningImportance
	s.notice.Hide()
	s.tabs = container.NewAppTabs(
		container.NewTabItem(TabGrants, container.NewBorder(s.grantsBar(), nil, nil, nil, s.grants.View)),
		container.NewTabItem(TabDenials, s.denials.View),
		container.NewTabItem(TabAudit, container.NewBorder(s.auditBar(), nil, nil, nil, s.audit.View)),
		container.NewTabItem(TabPending, s.pendingList),
	)
	s.Win.SetContent(container.NewBorder(s.notice, s.status, nil, nil, s.tabs))
	s.Win.Resize(fyne.NewSize(1120, 560))
	s.Win.SetCloseIntercept(s.hide)
	return s
}

// NoTrayNotice is what the app's window says on a desktop with no tray:
// the window is the way in, and how to get it back once closed.
const NoTrayNotice = "This desktop has no system tray, so pathgrant has no icon. Closing this window keeps " +
	"pathgrant running; reopen it with 'pathgrant settings'. Requests open their own window."

// SetNotice shows text above the tabs, for what the person must know to
// find the window again (the desktop has no tray). UI goroutine only.
func (s *Settings) SetNotice(text string) {
	s.notice.SetText(text)
	s.notice.Show()
}

// Show displays the window, brings it to the front, and keeps it fresh
// while it is open.
func (s *Settings) Show() {
	s.Win.Show()
	s.Win.RequestFocus()
	if s.stop == nil {
		s.stop, s.stopped = make(chan struct{}), make(chan struct{})
		go s.refreshLoop(s.stop, s.stopped)
	}
}

// hide stops the refresh loop, waits for it, and hides the window.
func (s *Settings) hide() {
	if s.stop != nil {
		close(s.stop)
		<-s.stopped
		s.stop = nil
	}
	s.Win.Hide()
}

func (s *Settings) refreshLoop(stop <-chan struct{}, stopped chan<- struct{}) {
	defer close(stopped)
	t := time.NewTicker(refreshEvery)
	defer t.Stop()
	for {
		s.Reload()
		select {
		case <-stop:
			return
		case <-t.C:
		}
	}
}

// Reload fetches everything from the backend (off the UI goroutine) and
// then redraws.
func (s *Settings) Reload() {
	gs, gerr := s.backend.Grants()
	ds, derr := s.backend.Denials()
	recs, aerr := s.backend.Audit(s.auditFilter())
	ps, perr := s.backend.Pending()
	s.learnSessions(gs, ds, recs, ps)
	s.mu.Lock()
	if gerr == nil {
		s.allGrants = gs
	}
	if aerr == nil {
		s.records = recs
	}
	if perr == nil {
		s.pending = ps
	}
	s.mu.Unlock()
	if derr == nil {
		s.denials.set(ds)
	}
	s.applyFilters()
	msg := ""
	if err := firstErr(gerr, derr, aerr, perr); err != nil {
		msg = "cannot reach the daemon: " + err.Error()
	}
	fyne.Do(func() { s.redraw(msg) })
}

// learnSessions notes in the session book what each list says of its
// sessions, so that every row and picker shows a label.
func (s *Settings) learnSessions(gs []grants.Grant, ds []wire.Denial, recs []grants.Record, ps []wire.Request) {
	if l, ok := s.backend.(sessionLister); ok {
		live, _ := l.Sessions() // labels only: without them the rest still names sessions
		for _, ss := range live {
			s.book.note(ss.ID, ss.Agent, ss.Cwd, ss.Started, time.Time{})
		}
	}
	for _, r := range ps {
		s.book.note(r.Session, r.Agent, r.Cwd, r.SessionStarted, r.Created)
	}
	for _, d := range ds {
		s.book.note(d.Session, d.Agent, d.Cwd, d.SessionStarted, d.Created)
	}
	for _, g := range gs {
		s.book.note(g.Session, g.Agent, "", time.Time{}, g.Created)
	}
	for _, r := range recs {
		s.book.note(r.Session, r.Agent, "", time.Time{}, r.Time)
	}
}

func (s *Settings) redraw(msg string) {
	s.status.SetText(msg)
	s.grants.Widget.Refresh()
	s.denials.Widget.Refresh()
	s.audit.Widget.Refresh()
	s.pendingList.Refresh()
	s.bars.setSessions(s.book, s.grantSessions())
}

// grantSessions are the sessions of the grants the state filter shows.
func (s *Settings) grantSessions() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, g := range filterGrants(s.allGrants, s.filter.state, time.Now()) {
		if g.Session != "" && !slices.Contains(out, g.Session) {
			out = append(out, g.Session)
		}
	}
	return out
}

// act runs a change off the UI goroutine, then reloads.
func (s *Settings) act(f func() error) {
	s.background(func() {
		if err := f(); err != nil {
			fyne.Do(func() { s.status.SetText(err.Error()) })
			return
		}
		s.Reload()
	})
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}
