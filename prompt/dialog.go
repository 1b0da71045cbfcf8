// Package prompt shows approval requests to the user: a Fyne window per
// pending request, and one OS notification per new request.
package prompt

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"pathgrant/guard"
	"pathgrant/wire"
)

// Choice labels, as the user reads them.
const (
	LabelOnce    = "Allow once"
	LabelSession = "Allow for this session"
	LabelDevice  = "Always allow read-only on this device"
	LabelDeny    = "Deny"
	LabelFile    = "This file"
	LabelFolder  = "Its folder"
)

// Row labels of what the dialog shows about the request's origin.
const (
	LabelReason    = "Denied because"
	LabelCwd       = "Working directory"
	LabelWorkspace = "Workspace"
	LabelOpenUntil = "Open until"
)

// Dialog is the content of one approval window. Its allow buttons start
// disabled and arm only when Arm is called (after a short delay), so a
// keystroke already in flight cannot approve. Every way out (a button,
// Escape, closing the window) decides exactly once.
type Dialog struct {
	Request wire.Request

	Once, Session, Device, Deny *widget.Button // Device is nil unless the request is a read
	Target                      *widget.RadioGroup
	Expiry                      *widget.Label // "HH:MM:SS (in 9m41s)": Tick keeps it current
	// Code shows the request's one-time approval code and the command
	// that approves from a terminal; hidden until SetCode gives one.
	Code *widget.Label
	// CodeEntry takes the approval code in a window that runs outside the
	// daemon (AskCode): such a window is never shown the code, so the
	// person types the one their prompt or the daemon's log shows.
	CodeEntry *widget.Entry
	// Unconfined is a banner shown while agent commands run unconfined
	// (SetConfinement).
	Unconfined *widget.Label

	decide  func(wire.Decision)
	once    sync.Once
	armed   atomic.Bool
	decided atomic.Bool
	content fyne.CanvasObject
}

// NewDialog builds the dialog for req; decide receives the user's decision.
func NewDialog(req wire.Request, decide func(wire.Decision)) *Dialog {
	d := &Dialog{Request: req, decide: decide}
	d.Once = d.allowButton(LabelOnce, "once")
	d.Once.Importance = widget.HighImportance
	d.Session = d.allowButton(LabelSession, "session")
	if req.Op == guard.OpRead {
		d.Device = d.allowButton(LabelDevice, "device")
	}
	d.Deny = widget.NewButton(LabelDeny, func() { d.choose(wire.Decision{Scope: "deny"}) })
	d.Deny.Importance = widget.DangerImportance
	d.Target = widget.NewRadioGroup(d.targets(), nil)
	d.Target.Horizontal = true
	d.Target.Required = true
	d.Target.SetSelected(d.targets()[0])
	d.Expiry = widget.NewLabel("")
	d.Code = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
	d.Code.Wrapping = fyne.TextWrapWord
	d.Code.Hide()
	d.CodeEntry = widget.NewEntry()
	d.CodeEntry.SetPlaceHolder(CodePlaceholder)
	d.CodeEntry.Hide()
	d.Unconfined = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	d.Unconfined.Wrapping = fyne.TextWrapWord
	d.Unconfined.Hide()
	d.Tick(time.Now())
	d.content = d.layout()
	return d
}

// SetCode shows the request's approval code: only the person sees this
// window, and the code is what lets them approve from a terminal instead.
// UI goroutine only.
func (d *Dialog) SetCode(code string) {
	if code == "" {
		d.Code.Hide()
		return
	}
	d.Code.SetText(CodeText(d.Request.ID, code))
	d.Code.Show()
}

// CodePlaceholder is the hint in the code entry of an AskCode dialog.
const CodePlaceholder = "Approval code (shown in the request's prompt or the daemon's log)"

// AskCode shows the code entry: the allow buttons then send what the
// person typed, and the daemon refuses a wrong code. Deny needs none. UI
// goroutine only.
func (d *Dialog) AskCode() { d.CodeEntry.Show() }

// SetConfinement shows the unconfined banner when level (the daemon's
// confinement) leaves agent commands unconfined: what the person approves
// then reaches commands no kernel confines. UI goroutine only.
func (d *Dialog) SetConfinement(level string) {
	if !wire.Level(level).Unconfined() {
		d.Unconfined.Hide()
		return
	}
	d.Unconfined.SetText(UnconfinedBanner(level))
	d.Unconfined.Show()
}

// UnconfinedBanner is the prompt's banner line for an unconfined level.
func UnconfinedBanner(level string) string {
	return "UNCONFINED: agent commands are not confined (" + level + "): pathgrant's checks are all that stands between them and your files"
}

// CodeText is the line that shows a request's approval code.
func CodeText(id, code string) string {
	return fmt.Sprintf("Approval code: %s — to approve from a terminal: pathgrant approve %s --code %s", code, id, code)
}

// Tick sets the countdown to the request's expiry as seen at now: the
// user knows how long the agent's request stays open before it ends as a
// deny. UI goroutine only.
func (d *Dialog) Tick(now time.Time) {
	d.Expiry.SetText(openUntil(d.Request.Expires, now))
}

// openUntil says until when a request stays open and how long that is
// from now.
func openUntil(expires, now time.Time) string {
	switch {
	case expires.IsZero():
		return "–"
	case !now.Before(expires):
		return "expired"
	}
	left := expires.Sub(now).Round(time.Second)
	return fmt.Sprintf("%s (in %s)", expires.Local().Format("15:04:05"), left)
}

func (d *Dialog) allowButton(label, scope string) *widget.Button {
	b := widget.NewButton(label, func() {
		d.choose(wire.Decision{Scope: scope, Kind: d.kind(), Code: strings.TrimSpace(d.CodeEntry.Text)})
	})
	b.Disable()
	return b
}

// targets are the scopes the user may pick: the suggested one first (the
// single file by default), and its folder when the suggestion is a file.
func (d *Dialog) targets() []string {
	if d.Request.Suggested.Kind == guard.KindFolder {
		return []string{LabelFolder}
	}
	return []string{LabelFile, LabelFolder}
}

func (d *Dialog) kind() guard.GrantKind {
	if d.Target.Selected == LabelFolder {
		return guard.KindFolder
	}
	return guard.KindFile
}

// Content is the dialog's canvas object.
func (d *Dialog) Content() fyne.CanvasObject { return d.content }

// Arm enables the allow buttons. UI goroutine only.
func (d *Dialog) Arm() {
	for _, b := range d.allowButtons() {
		b.Enable()
	}
	d.armed.Store(true)
}

// Armed reports whether the allow buttons are enabled; safe from any
// goroutine.
func (d *Dialog) Armed() bool { return d.armed.Load() }

func (d *Dialog) allowButtons() []*widget.Button {
	bs := []*widget.Button{d.Once, d.Session}
	if d.Device != nil {
		bs = append(bs, d.Device)
	}
	return bs
}

// TypedKey handles keys on the window: Escape denies this request; Return
// takes the default, Allow once, but only once armed.
func (d *Dialog) TypedKey(ev *fyne.KeyEvent) {
	switch ev.Name {
	case fyne.KeyEscape:
		d.choose(wire.Decision{Scope: "deny"})
	case fyne.KeyReturn, fyne.KeyEnter:
		if d.Armed() {
			d.Once.OnTapped()
		}
	}
}

// Closed is called when the window is closed without a choice: deny.
func (d *Dialog) Closed() { d.choose(wire.Decision{Scope: "deny"}) }

func (d *Dialog) choose(dec wire.Decision) {
	d.once.Do(func() {
		d.decided.Store(true)
		d.decide(dec)
	})
}

// Decided reports whether the user has made a choice; safe from any
// goroutine.
func (d *Dialog) Decided() bool { return d.decided.Load() }

func (d *Dialog) layout() fyne.CanvasObject {
	r := d.Request
	head := widget.NewLabelWithStyle(fmt.Sprintf("%s wants to %s", who(r), r.Op), fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	path := widget.NewLabelWithStyle(r.Path, fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
	path.Wrapping = fyne.TextWrapBreak
	form := widget.NewForm()
	if r.Requested != "" && r.Requested != r.Path {
		form.Append("Requested as", monoLabel(r.Requested))
	}
	form.Append(LabelReason, wrapLabel(orDash(r.Reason)))
	form.Append(LabelCwd, monoLabel(orDash(r.Cwd)))
	if ws := otherRoots(r.Workspace, r.Cwd); ws != "" {
		form.Append(LabelWorkspace, monoLabel(ws))
	}
	form.Append("Workflow", widget.NewLabel(orDash(r.Workflow)))
	form.Append("Tool", widget.NewLabel(orDash(r.Tool)))
	if r.Command != "" {
		form.Append("Command", monoLabel(shorten(r.Command, 300)))
	}
	form.Append("Asked", widget.NewLabel(fmt.Sprintf("%d time(s)", r.Count)))
	form.Append(LabelOpenUntil, d.Expiry)
	form.Append("Grant", d.Target)
	buttons := container.NewVBox(d.Once, d.Session)
	if d.Device != nil {
		buttons.Add(d.Device)
	}
	buttons.Add(d.Deny)
	return container.NewVBox(d.Unconfined, head, path, form, d.CodeEntry, widget.NewSeparator(), buttons, d.Code)
}

// otherRoots lists the workspace roots, one a line, unless the workspace
// is just the working directory, which the dialog already shows.
func otherRoots(roots []string, cwd string) string {
	if len(roots) == 0 || (len(roots) == 1 && roots[0] == cwd) {
		return ""
	}
	return strings.Join(roots, "\n")
}

func wrapLabel(s string) *widget.Label {
	l := widget.NewLabel(s)
	l.Wrapping = fyne.TextWrapWord
	return l
}

func monoLabel(s string) *widget.Label {
	l := widget.NewLabelWithStyle(s, fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
	l.Wrapping = fyne.TextWrapBreak
	return l
}

// who names the requester: the agent and a short session id.
func who(r wire.Request) string {
	agent := orDash(r.Agent)
	if r.Agent == "" {
		agent = "An agent"
	}
	return fmt.Sprintf("%s (session %s)", agent, short(r.Session))
}

func short(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}
