package tray

import (
	"fmt"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
)

// newRow is a list row: a path, a line of details, and one action button.
func newRow() fyne.CanvasObject {
	path := widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
	path.Truncation = fyne.TextTruncateEllipsis
	detail := widget.NewLabel("")
	detail.Truncation = fyne.TextTruncateEllipsis
	return container.NewBorder(nil, nil, nil, widget.NewButton("", nil), container.NewVBox(path, detail))
}

func newAuditRow() fyne.CanvasObject {
	l := widget.NewLabel("")
	l.Truncation = fyne.TextTruncateEllipsis
	return l
}

// fillRow sets a row made by newRow.
func fillRow(o fyne.CanvasObject, path, detail, action string, tapped func()) {
	c := o.(*fyne.Container)
	texts := c.Objects[0].(*fyne.Container).Objects
	texts[0].(*widget.Label).SetText(path)
	texts[1].(*widget.Label).SetText(detail)
	b := c.Objects[1].(*widget.Button)
	b.SetText(action)
	b.OnTapped = tapped
}

func (s *Settings) grantCount() int { return count(s, &s.grants) }

// count returns len(*list) under the window's lock.
func count[T any](s *Settings, list *[]T) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(*list)
}

// item returns list[i] under the window's lock; ok is false when a reload
// shrank the list since the row was laid out.
func item[T any](s *Settings, list *[]T, i widget.ListItemID) (T, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var zero T
	if i < 0 || i >= len(*list) {
		return zero, false
	}
	return (*list)[i], true
}

func (s *Settings) updateGrant(i widget.ListItemID, o fyne.CanvasObject) {
	g, ok := item(s, &s.grants, i)
	if !ok {
		return
	}
	state := g.State(time.Now())
	detail := fmt.Sprintf("%s %s · %s · %s · session %s%s · created %s · expires %s · last used %s · %d uses",
		g.Op, g.Kind, g.Scope, state, short(g.Session), orEmpty(" / ", g.Workflow), when(g.Created), when(g.Expires),
		when(g.LastUsed), g.UseCount)
	if state != "live" { // nothing left to revoke
		fillRow(o, g.Path, detail, "Ended", func() {})
		o.(*fyne.Container).Objects[1].(*widget.Button).Disable()
		return
	}
	fillRow(o, g.Path, detail, "Revoke", func() { s.act(func() error { return s.backend.Revoke(g.ID) }) })
	o.(*fyne.Container).Objects[1].(*widget.Button).Enable()
}

func (s *Settings) auditCount() int { return count(s, &s.records) }

func (s *Settings) updateAudit(i widget.ListItemID, o fyne.CanvasObject) {
	r, ok := item(s, &s.records, i)
	if !ok {
		return
	}
	o.(*widget.Label).SetText(fmt.Sprintf("%s  %-14s session %s  %s %s %s  %s",
		r.Time.Local().Format("2006-01-02 15:04:05"), r.Kind, short(r.Session), r.Op, r.Path, r.Scope, r.Reason))
}

func (s *Settings) pendingCount() int { return count(s, &s.pending) }

func (s *Settings) updatePending(i widget.ListItemID, o fyne.CanvasObject) {
	r, ok := item(s, &s.pending, i)
	if !ok {
		return
	}
	detail := fmt.Sprintf("%s · %s · session %s · tool %s · asked %d time(s) · expires %s",
		r.Op, r.Agent, short(r.Session), r.Tool, r.Count, when(r.Expires))
	fillRow(o, r.Path, detail, "Review…", func() { s.review(r) })
}

func short(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

func orEmpty(prefix, s string) string {
	if s == "" {
		return ""
	}
	return prefix + s
}

func when(t time.Time) string {
	if t.IsZero() {
		return "–"
	}
	return t.Local().Format("Jan 2 15:04")
}
