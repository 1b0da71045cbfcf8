package tray

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"
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
		{title: "Path", width: 260, text: func(g grants.Grant) string { return s.tilde(g.Path) }, cut: cutStart},
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

// grantActions edit and revoke a live grant; an ended one has nothing to
// revoke, and is edited as any. Edit… asks for the changed scope as a
// new request and leaves the grant as it is (EditNote): a read's grant
// only, where the backend can ask.
func (s *Settings) grantActions(g grants.Grant) []action {
	var edit action
	if s.canAsk() && g.Op == wire.OpRead {
		edit = action{label: LabelEdit, tapped: func() { s.askDialog(TitleEditGrant, g.Path) }}
	}
	if g.State(time.Now()) != "live" {
		return []action{edit, {label: "Ended"}}
	}
	return []action{edit, {label: LabelRevoke, tapped: func() { s.act(func() error { return s.backend.Revoke(g.ID) }) }}}
}

func (s *Settings) grantDetails(g grants.Grant) []field {
	return []field{
		{"Path", s.tilde(g.Path)},
		{"Allows", grantOp(g)},
		{"Scope", string(g.Scope)},
		{"State", g.State(time.Now())},
		{"Granted", stamp(g.Created)},
		{"Expires", expiresInFull(g)},
		{"Uses", strconv.FormatUint(g.UseCount, 10)},
		{"Last used", stamp(g.LastUsed)},
		{"Session", s.grantSession(g)},
		{"Agent", orEmpty("", g.Agent)},
		{"Grant", g.ID},
	}
}

// expiresInFull is expires with the date and seconds.
func expiresInFull(g grants.Grant) string {
	if !g.Expires.IsZero() {
		return stamp(g.Expires)
	}
	return expires(g)
}

func (s *Settings) denialColumns() []column[wire.Denial] {
	return []column[wire.Denial]{
		{title: "Session", width: 240, text: func(d wire.Denial) string { return s.book.label(d.Session) }},
		{title: "Holds", width: 95, text: denialHolds},
		{title: "Op", width: 70, text: func(d wire.Denial) string { return string(d.Op) }},
		{title: "Path", width: 300, text: func(d wire.Denial) string { return s.tilde(d.Path) }, cut: cutStart},
		{title: "Hits", width: 60, text: func(d wire.Denial) string { return strconv.Itoa(d.Hits) },
			order: func(a, b wire.Denial) int { return cmp.Compare(a.Hits, b.Hits) }},
		{title: "Last hit", width: 105, text: func(d wire.Denial) string { return when(d.LastHit) },
			order: byTime(func(d wire.Denial) time.Time { return d.LastHit })},
		{title: "Denied", width: 105, text: func(d wire.Denial) string { return when(d.Created) },
			order: byTime(func(d wire.Denial) time.Time { return d.Created })},
	}
}

// denialHolds says for whom a remembered denial holds: the session it
// was decided in, or every session on this device ("Deny on this
// device").
func denialHolds(d wire.Denial) string {
	if d.Device {
		return "this device"
	}
	return "this session"
}

// denialActions lift a remembered denial: that access asks again.
func (s *Settings) denialActions(d wire.Denial) []action {
	return []action{{label: LabelLift, tapped: func() { s.act(func() error { return s.backend.LiftDenial(d.ID) }) }}}
}

func (s *Settings) denialDetails(d wire.Denial) []field {
	decided := "Session"
	if d.Device {
		decided = "Decided in"
	}
	return []field{
		{"Path", s.tilde(d.Path)},
		{"Denies", string(d.Op)},
		{"Holds for", denialHolds(d)},
		{decided, s.book.label(d.Session)},
		{"Denied", stamp(d.Created)},
		{"Hits", strconv.Itoa(d.Hits)},
		{"Last hit", stamp(d.LastHit)},
		{"Request", orEmpty("", d.Request)},
	}
}

func (s *Settings) auditColumns() []column[grants.Record] {
	return []column[grants.Record]{
		{title: "Time", width: 130, text: func(r grants.Record) string { return auditTime(r.Time, time.Now()) },
			order: func(a, b grants.Record) int { return cmp.Compare(a.Seq, b.Seq) }},
		{title: "What", width: 120, text: func(r grants.Record) string { return r.Kind.Label() }},
		{title: "Session", width: 200, text: func(r grants.Record) string { return s.book.label(r.Session) }},
		{title: "Op", width: 60, text: func(r grants.Record) string { return string(r.Op) }},
		{title: "Path", width: 250, text: func(r grants.Record) string { return s.tilde(r.Path) }, cut: cutStart},
		{title: "Scope", width: 70, text: func(r grants.Record) string { return string(r.Scope) }},
		{title: "Reason", width: 250, text: func(r grants.Record) string { return reasonText(r, s.book.home) }},
	}
}

// allowable reports whether the audit offers Allow… on r: a read refused
// as outside the workspace. A protected path, a folder of credentials,
// configuration or state the guard says is never offered, a write and
// anything the guard could not prove are not; the daemon checks again,
// and says why it refuses one the reason did not tell.
func allowable(r grants.Record) bool {
	return r.Kind == grants.KindRefuse && r.Op == wire.OpRead && r.Path != "" && recordRule(r) == wire.RuleOutside &&
		!neverApproved(r.Reason)
}

// neverApproved reports whether a refusal's reason says the guard never
// offers that read (guard's reasons for a never-eligible folder).
func neverApproved(reason string) bool {
	return strings.Contains(reason, "never offers for approval") || strings.Contains(reason, "never be approved")
}

// auditActions offer Allow… on a refused read: the daemon raises an
// approval request for it, which the person decides in the inbox.
func (s *Settings) auditActions(r grants.Record) []action {
	if !allowable(r) || !s.canAsk() {
		return nil
	}
	return []action{{label: LabelAllow, tapped: func() { s.allowFromAudit(r) }}}
}

func (s *Settings) auditDetails(r grants.Record) []field {
	fields := []field{
		{"Time", stamp(r.Time)},
		{"What", r.Kind.Label()},
		{"Session", s.book.label(r.Session)},
		{"Agent", orEmpty("", r.Agent)},
		{"Tool", orEmpty("", r.Tool)},
		{"Op", orEmpty("", string(r.Op))},
		{"Path", orEmpty("", s.tilde(r.Path))},
		{"Scope", orEmpty("", string(r.Scope))},
		{"Reason", orEmpty("", reasonText(r, s.book.home))},
	}
	if words, ok := ruleWords[recordRule(r)]; ok {
		fields = append(fields, field{"Decided by", words})
	}
	return append(fields, field{"Grant", orEmpty("", r.Grant)}, field{"Request", orEmpty("", r.RequestID)},
		field{"Record", strconv.FormatUint(r.Seq, 10)})
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
	detail := fmt.Sprintf("%s · %s · tool %s · %d waiting · %s · expires %s",
		r.Op, s.book.label(r.Session), orEmpty("", r.Tool), r.Waiting, prompt.AskedText(r.Count), when(r.Expires))
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

// auditTime is when a record was written, short enough for its column:
// the year only when it is not this one (the details view has it all).
func auditTime(t, now time.Time) string {
	t = t.Local()
	if t.Year() == now.Local().Year() {
		return t.Format("Jan 2 15:04:05")
	}
	return t.Format("2006-01-02 15:04")
}

// stamp is t in full, for the details view.
func stamp(t time.Time) string {
	if t.IsZero() {
		return "–"
	}
	return t.Local().Format("2006-01-02 15:04:05")
}
