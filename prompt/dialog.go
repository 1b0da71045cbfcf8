// Package prompt shows approval requests to the user: one inbox window for
// every pending request of every agent, and one OS notification per new
// request.
package prompt

import (
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"

	"pathgrant/guard"
	"pathgrant/wire"
)

// Choice labels, as the user reads them.
const (
	LabelOnce    = "Allow once"
	LabelSession = "Allow for this session"
	LabelDevice  = "Always allow read-only on this device"
	// LabelDeviceConnect is the device choice of a connection.
	LabelDeviceConnect = "Always allow on this device"
	LabelDeny          = "Deny"
	LabelDenySession   = "Deny for this session"
	LabelFile          = "This file"
	LabelFolder        = "Its folder"
)

// Row labels of what the dialog shows about the request's origin.
const (
	LabelReason    = "Denied because"
	LabelSessionOf = "Session"
	LabelWorkspace = "Workspace"
	LabelOpenUntil = "Open until"
	LabelGrant     = "Grant"
)

// Dialog is the content of the inbox window for one request. Its allow
// buttons start disabled and arm only when Arm is called (after a short
// delay), so a click or keystroke meant for the request shown before
// cannot approve this one. A choice decides once; a decision the daemon
// refuses (a wrong code) is shown and the person may choose again.
type Dialog struct {
	Request wire.Request

	Once, Session, Device, Deny, DenySession *widget.Button // Device is nil unless the request is a read
	Target                                   *widget.RadioGroup
	// SessionFor and DeviceFor choose how long a session or device grant
	// lasts, in words ("until the session ends", "always, until you
	// revoke it"), beside its button.
	SessionFor, DeviceFor *widget.Select
	Expiry                *widget.Label // "HH:MM:SS (in 9m41s)": Tick keeps it current
	Waiting               *widget.Label // the agent's clock: Tick and Update keep it current
	Asked                 *widget.Label
	// Code shows the approval code of each allow button's choice (one
	// code per choice, SetCode), Command the command that approves once
	// from a terminal, which asks for the code; selectable, each with a
	// Copy button (the once code, the command); hidden until SetCode gives
	// codes.
	Code, Command         *widget.Label
	CopyCode, CopyCommand *widget.Button
	// CodeEntry takes the approval code in a window that runs outside the
	// daemon (AskCode): such a window is never shown the code, so the
	// person types the one their prompt or the daemon's log shows.
	CodeEntry *widget.Entry
	// Error is the daemon's refusal of the last choice, one line.
	Error *widget.Label
	// Unconfined is a banner shown while agent commands run unconfined
	// (SetConfinement).
	Unconfined *widget.Label
	// Position ("1 of 5"), Prev, Next and DenyAll are the inbox's
	// navigation; the Prompter gives them their actions (SetNav).
	Position            *widget.Label
	Prev, Next, DenyAll *widget.Button
	// Confirm asks a second question before a durable grant of a whole
	// folder and calls ok only on yes. nil: such a grant is never decided.
	Confirm func(message string, ok func())

	decide func(wire.Decision)
	// codes are the request's approval codes (SetCode), clipboard where
	// Copy puts them.
	codes     []wire.ChoiceCode
	clipboard fyne.Clipboard
	armed     atomic.Bool
	decided   atomic.Bool
	home      string
	content   fyne.CanvasObject
	// details and choices are the scrolling part and the bottom edge.
	details, choices *fyne.Container
	// KeysLive says whether the allow shortcuts may act: the Prompter's
	// says so once the person's pointer was at the window (presence.go).
	// nil: always.
	KeysLive func() bool
}

// NewDialog builds the dialog for req; decide receives the user's decision.
func NewDialog(req wire.Request, decide func(wire.Decision)) *Dialog {
	d := &Dialog{Request: req, decide: decide, home: home()}
	d.Once = d.allowButton(LabelOnce, "once")
	d.Once.Importance = widget.HighImportance
	d.Session = d.allowButton(LabelSession, "session")
	switch req.Op {
	case guard.OpRead:
		d.Device = d.allowButton(LabelDevice, "device")
	case guard.OpConnect:
		d.Device = d.allowButton(LabelDeviceConnect, "device")
	}
	d.Deny = widget.NewButton(LabelDeny, func() { d.choose(wire.Decision{Scope: "deny"}) })
	d.Deny.Importance = widget.DangerImportance
	d.DenySession = widget.NewButton(LabelDenySession, func() { d.choose(wire.Decision{Scope: "deny", Remember: true}) })
	d.DenySession.Importance = widget.DangerImportance
	d.Target = widget.NewRadioGroup(d.targets(), nil)
	d.Target.Horizontal = true
	d.Target.Required = true
	d.Target.SetSelected(d.targets()[0])
	d.newDurations()
	d.Expiry = widget.NewLabel("")
	d.Waiting = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	d.Asked = widget.NewLabel(AskedText(req.Count))
	d.newCode()
	d.Error = widget.NewLabel("")
	d.Error.Importance = widget.DangerImportance
	d.Error.Truncation = fyne.TextTruncateEllipsis
	d.Error.Hide()
	d.Unconfined = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	d.Unconfined.Wrapping = fyne.TextWrapWord
	d.Unconfined.Hide()
	d.newNav()
	d.Tick(time.Now())
	d.content = d.layout()
	return d
}

// newDurations makes the duration menus, the scope's own end first.
func (d *Dialog) newDurations() {
	d.SessionFor = widget.NewSelect(labels(SessionDurations), nil)
	d.SessionFor.SetSelectedIndex(0)
	if d.Device != nil {
		d.DeviceFor = widget.NewSelect(labels(DeviceDurations), nil)
		d.DeviceFor.SetSelectedIndex(0)
	}
}

// newNav makes the inbox's navigation, inert until SetNav.
func (d *Dialog) newNav() {
	d.Position = widget.NewLabelWithStyle("1 of 1", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	d.Prev = widget.NewButton("Previous", nil)
	d.Next = widget.NewButton("Next", nil)
	d.DenyAll = widget.NewButton("Deny all from this session", nil)
	d.Prev.Disable()
	d.Next.Disable()
}

// SetNav shows where the request is in the inbox (i of n, from 0) and
// gives the navigation its actions. UI goroutine only.
func (d *Dialog) SetNav(i, n int, prev, next, denyAll func()) {
	d.Position.SetText(fmt.Sprintf("%d of %d", i+1, n))
	d.Prev.OnTapped, d.Next.OnTapped, d.DenyAll.OnTapped = prev, next, denyAll
	enable(d.Prev, i > 0)
	enable(d.Next, i < n-1)
}

func enable(b *widget.Button, on bool) {
	if on {
		b.Enable()
	} else {
		b.Disable()
	}
}

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

// Tick sets the clocks as seen at now: how long the agent still waits,
// and how long the request stays open before it ends as a deny. UI
// goroutine only.
func (d *Dialog) Tick(now time.Time) {
	d.Expiry.SetText(openUntil(d.Request.Expires, now))
	d.Waiting.SetText(WaitingText(d.Request, now))
}

// Update takes r's new waiting calls and repeat count (the same request,
// changed). UI goroutine only.
func (d *Dialog) Update(r wire.Request) {
	if r.ID != d.Request.ID {
		return
	}
	d.Request.Waiting, d.Request.WaitUntil, d.Request.Count = r.Waiting, r.WaitUntil, r.Count
	d.Asked.SetText(AskedText(r.Count))
	d.Tick(time.Now())
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
	b := widget.NewButton(label, func() { d.allow(scope) })
	b.Disable()
	return b
}

// allow decides an approval of scope with the chosen target, duration and
// code; a durable grant of a whole folder asks first.
func (d *Dialog) allow(scope string) {
	if d.Decided() {
		return
	}
	dec := wire.Decision{Scope: scope, Kind: d.kind(), Code: strings.TrimSpace(d.CodeEntry.Text)}
	lasts := ""
	switch scope {
	case "session":
		dec.For = durationFor(SessionDurations, d.SessionFor.Selected)
	case "device":
		dec.For = durationFor(DeviceDurations, d.DeviceFor.Selected)
		lasts = d.DeviceFor.Selected
	}
	if scope != "device" || dec.Kind != guard.KindFolder {
		d.choose(dec)
		return
	}
	if d.Confirm == nil {
		return
	}
	folder := d.Request.Path
	if d.Request.Suggested.Kind != guard.KindFolder {
		folder = parentDir(folder)
	}
	d.Confirm(FolderConfirmText(Tilde(folder, d.home), lasts), func() { d.choose(dec) })
}

// targets are the scopes the user may pick: the suggested one first (the
// single file by default), and its folder when the suggestion is a file.
func (d *Dialog) targets() []string {
	if d.Request.Suggested.Kind == guard.KindFolder {
		return []string{LabelFolder}
	}
	return []string{LabelFile, LabelFolder}
}

// kind is the grant's kind the person chose: a connection's is always
// its one destination (guard.KindFile), whatever the hidden target says.
func (d *Dialog) kind() guard.GrantKind {
	if d.Target.Selected == LabelFolder && d.Request.Op != guard.OpConnect {
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

// TypedKey handles keys on the window: Escape denies this request. Return
// approves nothing: it is the key most likely typed into a window that
// opened under the person's fingers (presence.go).
func (d *Dialog) TypedKey(ev *fyne.KeyEvent) {
	if ev.Name == fyne.KeyEscape {
		d.choose(wire.Decision{Scope: "deny"})
	}
}

// choose hands dec on, unless a choice is already on its way.
func (d *Dialog) choose(dec wire.Decision) {
	if d.decided.CompareAndSwap(false, true) {
		d.decide(dec)
	}
}

// Decided reports whether a choice is on its way; safe from any
// goroutine.
func (d *Dialog) Decided() bool { return d.decided.Load() }

func parentDir(p string) string {
	if i := strings.LastIndexByte(p, '/'); i > 0 {
		return p[:i]
	}
	return "/"
}
