package tray

import (
	"encoding/json"
	"io"
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

// refreshEvery is how often an open settings window reloads, so that
// changes made through the CLI or by expiry show up without reopening.
const refreshEvery = 2 * time.Second

const allFilter = "All"

// Settings is the grants, audit and pending window.
type Settings struct {
	Win     fyne.Window
	backend Backend
	review  func(wire.Request)
	// background runs backend calls off the UI goroutine; tests make it
	// synchronous.
	background func(func())

	mu        sync.Mutex
	allGrants []grants.Grant // every grant the backend has, live or ended
	grants    []grants.Grant // those the state filter shows
	records   []grants.Record
	pending   []wire.Request

	grantList, auditList, pendingList        *widget.List
	sessionPick, auditSession, kind, stateIs *widget.Select
	status                                   *widget.Label
	stop, stopped                            chan struct{}
}

// NewSettings builds the window; review opens a prompt for a pending
// request. Call Show to display it.
func NewSettings(a fyne.App, b Backend, review func(wire.Request)) *Settings {
	s := &Settings{Win: a.NewWindow(SettingsTitle), backend: b, review: review, status: widget.NewLabel(""),
		background: func(f func()) { go f() }}
	s.grantList = widget.NewList(s.grantCount, newRow, s.updateGrant)
	s.auditList = widget.NewList(s.auditCount, newAuditRow, s.updateAudit)
	s.pendingList = widget.NewList(s.pendingCount, newRow, s.updatePending)
	tabs := container.NewAppTabs(
		container.NewTabItem("Grants", container.NewBorder(s.grantsBar(), nil, nil, nil, s.grantList)),
		container.NewTabItem("Audit", container.NewBorder(s.auditBar(), nil, nil, nil, s.auditList)),
		container.NewTabItem("Pending", s.pendingList),
	)
	s.Win.SetContent(container.NewBorder(nil, s.status, nil, nil, tabs))
	s.Win.Resize(fyne.NewSize(820, 520))
	s.Win.SetCloseIntercept(s.hide)
	return s
}

// Show displays the window and keeps it fresh while it is open.
func (s *Settings) Show() {
	s.Win.Show()
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
	recs, aerr := s.backend.Audit(s.auditFilter())
	ps, perr := s.backend.Pending()
	slices.Reverse(recs) // newest first
	s.mu.Lock()
	if gerr == nil {
		s.allGrants = gs
	}
	s.grants = filterGrants(s.allGrants, s.stateFilter(), time.Now())
	if aerr == nil {
		s.records = recs
	}
	if perr == nil {
		s.pending = ps
	}
	s.mu.Unlock()
	msg := ""
	if err := firstErr(gerr, aerr, perr); err != nil {
		msg = "cannot reach the daemon: " + err.Error()
	}
	fyne.Do(func() { s.redraw(msg) })
}

func (s *Settings) redraw(msg string) {
	s.status.SetText(msg)
	s.grantList.Refresh()
	s.auditList.Refresh()
	s.pendingList.Refresh()
	s.sessionPick.SetOptions(s.sessions())
	s.auditSession.SetOptions(append([]string{allFilter}, s.sessions()...))
}

func (s *Settings) sessions() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, g := range s.grants {
		if g.Session != "" && !slices.Contains(out, g.Session) {
			out = append(out, g.Session)
		}
	}
	slices.Sort(out)
	return out
}

// The grant state filter: live grants (the default), ended ones (revoked,
// expired, used up, invalidated, or ended with their session, which says
// why: "ended (agent exited)"), or all.
const (
	stateLive  = "Live"
	stateEnded = "Ended"
)

func (s *Settings) stateFilter() string {
	if s.stateIs == nil || s.stateIs.Selected == "" {
		return stateLive
	}
	return s.stateIs.Selected
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

func (s *Settings) grantsBar() fyne.CanvasObject {
	s.stateIs = widget.NewSelect([]string{stateLive, stateEnded, allFilter}, nil)
	s.stateIs.SetSelected(stateLive)
	s.stateIs.OnChanged = func(string) { s.background(s.Reload) }
	s.sessionPick = widget.NewSelect(nil, nil)
	s.sessionPick.PlaceHolder = "Session…"
	revokeAll := widget.NewButton("Revoke all of session", func() {
		if sess := s.sessionPick.Selected; sess != "" {
			s.act(func() error { _, err := s.backend.RevokeSession(sess); return err })
		}
	})
	return container.NewHBox(widget.NewLabel("Show"), s.stateIs, s.sessionPick, revokeAll)
}

func (s *Settings) auditBar() fyne.CanvasObject {
	reload := func(string) { s.background(s.Reload) }
	s.auditSession = widget.NewSelect([]string{allFilter}, nil)
	s.auditSession.SetSelected(allFilter)
	s.auditSession.OnChanged = reload
	kinds := []string{allFilter}
	for _, k := range []grants.Kind{grants.KindRequest, grants.KindApprove, grants.KindDeny, grants.KindExpire,
		grants.KindRevoke, grants.KindUse, grants.KindInvalidate, grants.KindConflict, grants.KindForged,
		grants.KindStale, grants.KindForeignDevice} {
		kinds = append(kinds, string(k))
	}
	s.kind = widget.NewSelect(kinds, nil)
	s.kind.SetSelected(allFilter)
	s.kind.OnChanged = reload
	export := widget.NewButton("Export JSON lines…", s.export)
	return container.NewHBox(widget.NewLabel("Session"), s.auditSession, widget.NewLabel("Kind"), s.kind, export)
}

func (s *Settings) auditFilter() grants.AuditFilter {
	var f grants.AuditFilter
	if s.auditSession != nil && s.auditSession.Selected != allFilter {
		f.Session = s.auditSession.Selected
	}
	if s.kind != nil && s.kind.Selected != allFilter {
		f.Kind = grants.Kind(s.kind.Selected)
	}
	return f
}

func (s *Settings) export() {
	dialog.ShowFileSave(func(w fyne.URIWriteCloser, err error) {
		if err != nil || w == nil {
			return
		}
		s.act(func() error { defer w.Close(); return s.writeAudit(w) })
	}, s.Win)
}

// writeAudit writes the records shown, oldest first, as JSON lines.
func (s *Settings) writeAudit(w io.Writer) error {
	recs, err := s.backend.Audit(s.auditFilter())
	if err != nil {
		return err
	}
	enc := json.NewEncoder(w)
	for _, r := range recs {
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	return nil
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
