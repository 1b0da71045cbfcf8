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

// Choice labels, as the user reads them: each names its keyboard
// shortcut (Alt and a letter; no key alone, and never Return, decides
// anything), so the keyboard needs no guessing. e2e tests find the
// buttons by these texts.
const (
	LabelOnce    = "Allow once (Alt+O)"
	LabelSession = "Allow for this session (Alt+S)"
	// LabelDevice beside its duration menu reads "… on this device, for
	// 1 hour" or "…, always, until you revoke it": no "always" of its own.
	LabelDevice = "Allow read-only on this device (Alt+A)"
	// LabelDeviceConnect is the device choice of a connection.
	LabelDeviceConnect = "Allow on this device (Alt+A)"
	LabelDeny          = "Deny (Alt+D)"
	LabelDenySession   = "Deny for this session (Alt+R)"
	// LabelDenyDevice denies the same access to every session on this
	// device until the person lifts it (wire.Decision.Device).
	LabelDenyDevice = "Deny on this device (Alt+E)"
	LabelPrev       = "Previous (Alt+P)"
	LabelNext       = "Next (Alt+N)"
	LabelDenyAll    = "Deny all from this session"
	LabelCopy       = "Copy the command (Alt+C)"
	LabelCopyCode   = "Copy the once code"
	LabelClose      = "Close (Esc)"
	LabelDetails    = "Details"
)

// Row labels of what the details show about the request's origin.
const (
	LabelReason    = "Why you are asked"
	LabelSessionOf = "Session"
	LabelWorkspace = "Workspace"
	LabelGrant     = "Grant"
)

// Dialog is the content of the inbox window for one request. Its allow
// buttons start disabled and arm only when Arm is called (after a short
// delay), so a click or keystroke meant for the request shown before
// cannot approve this one. A choice decides once; a decision the daemon
// refuses (a wrong code) is shown and the person may choose again.
type Dialog struct {
	Request wire.Request

	// Device and DenyDevice are nil unless the request is a read or a
	// connection.
	Once, Session, Device, Deny, DenySession, DenyDevice *widget.Button
	// Target is the scope menu (ScopeOptions); with one scope it is
	// hidden and ScopeText names that scope.
	Target    *widget.Select
	ScopeText *widget.Label
	// SessionFor and DeviceFor choose how long a session or device grant
	// lasts, in words ("until the session ends", "always, until you
	// revoke it"), beside its button.
	SessionFor, DeviceFor *widget.Select
	Waiting               *widget.Label // the agent's clock: Tick and Update keep it current
	Purpose               *widget.Label // the agent's own words for the call; hidden when it gave none
	Asked                 *widget.Label
	// Details holds what a person rarely needs to decide (the input and
	// command, why pathgrant asks, the session, the approval codes),
	// closed until the person opens it.
	Details *widget.Accordion
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
	CodeEntry *CodeField
	// Error is the daemon's refusal of the last choice, one line.
	Error *widget.Label
	// Unconfined is a banner shown while agent commands run unconfined
	// (SetConfinement).
	Unconfined *widget.Label
	// Position ("1 of 5"), Prev, Next and DenyAll are the inbox's
	// navigation; the Prompter gives them their actions (SetNav).
	Position            *widget.Label
	Prev, Next, DenyAll *widget.Button
	// EndNote and Close replace the choices once the request ended
	// undecided (End): the window says so in place instead of vanishing.
	EndNote *widget.Label
	Close   *widget.Button
	// Confirm asks a second question before a durable grant of a whole
	// folder and calls ok only on yes. nil: such a grant is never decided.
	Confirm func(message string, ok func())
	// Dismiss hides the window, deciding nothing: Escape and Close call
	// it. nil: they do nothing.
	Dismiss func()
	// KeyDelay is how long the window must have had the keyboard before
	// an allow shortcut acts (FocusGained): keys typed for the window the
	// person just left do not approve.
	KeyDelay time.Duration

	decide func(wire.Decision)
	// codes are the request's approval codes (SetCode), clipboard where
	// Copy puts them.
	codes     []wire.ChoiceCode
	clipboard fyne.Clipboard
	armed     atomic.Bool
	decided   atomic.Bool
	ended     atomic.Bool
	// keysFrom is when the allow shortcuts may act (unix ns), 0 while the
	// window does not have the keyboard.
	keysFrom atomic.Int64
	home     string
	scopes   []ScopeOption
	content  fyne.CanvasObject
	// targetMenu, sessionForMenu and deviceForMenu are the menus as the
	// window holds them (Target, SessionFor and DeviceFor are theirs).
	targetMenu, sessionForMenu, deviceForMenu *menu
	// Refocus gives the window's focus back to its key trap (keys.go);
	// nil: nothing to give it back to.
	Refocus func()
	// details and choices are the scrolling part and the bottom edge.
	details, choices *fyne.Container
}

// NewDialog builds the dialog for req; decide receives the user's decision.
func NewDialog(req wire.Request, decide func(wire.Decision)) *Dialog {
	d := &Dialog{Request: req, decide: decide, home: home()}
	d.keysFrom.Store(time.Now().UnixNano())
	d.newChoices()
	d.newScope()
	d.newDurations()
	d.Waiting = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	d.Purpose = wrapLabel(PurposeText(req))
	d.Purpose.Hidden = d.Purpose.Text == ""
	d.Asked = widget.NewLabel(AskedText(req.Count))
	d.newCode()
	d.Error = widget.NewLabel("")
	d.Error.Importance = widget.DangerImportance
	d.Error.Truncation = fyne.TextTruncateEllipsis
	d.Error.Hide()
	d.Unconfined = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	d.Unconfined.Wrapping = fyne.TextWrapWord
	d.Unconfined.Hide()
	d.EndNote = wrapLabel("")
	d.EndNote.TextStyle.Bold = true
	d.Close = widget.NewButton(LabelClose, func() { d.dismiss() })
	d.newNav()
	d.Tick(time.Now())
	d.content = d.layout()
	return d
}

// newChoices makes the allow and deny buttons: the allow ones disabled
// until Arm, the device ones only where a durable choice exists.
func (d *Dialog) newChoices() {
	d.Once = d.allowButton(LabelOnce, "once")
	d.Once.Importance = widget.HighImportance
	d.Session = d.allowButton(LabelSession, "session")
	switch d.Request.Op {
	case guard.OpRead:
		d.Device = d.allowButton(LabelDevice, "device")
	case guard.OpConnect:
		d.Device = d.allowButton(LabelDeviceConnect, "device")
	}
	d.Deny = d.denyButton(LabelDeny, wire.Decision{Scope: "deny"})
	// The durable denials arm with the allow buttons: a click meant for
	// the request shown before (the Close of an ended one lies where Deny
	// on this device is) must not store a denial of one never seen. A
	// plain Deny, for this call only, stays at hand.
	d.DenySession = d.denyButton(LabelDenySession, wire.Decision{Scope: "deny", Remember: true})
	d.DenySession.Disable()
	if d.Device != nil {
		d.DenyDevice = d.denyButton(LabelDenyDevice, wire.Decision{Scope: "deny", Remember: true, Device: true})
		d.DenyDevice.Disable()
	}
}

func (d *Dialog) denyButton(label string, dec wire.Decision) *widget.Button {
	b := widget.NewButton(label, func() { d.choose(dec) })
	b.Importance = widget.DangerImportance
	return b
}

// newScope makes the scope menu and its words.
func (d *Dialog) newScope() {
	d.targetMenu = d.newMenu(nil)
	d.Target = &d.targetMenu.Select
	d.ScopeText = widget.NewLabel("")
	d.setScopes(ScopeOptions(d.Request, d.home))
}

// setScopes offers opts, the narrowest selected; a single scope is said
// in words, not offered as a menu of one.
func (d *Dialog) setScopes(opts []ScopeOption) {
	d.scopes = opts
	d.Target.SetOptions(scopeLabels(opts))
	d.Target.SetSelectedIndex(0)
	d.ScopeText.SetText(ScopeWords(d.Request, opts[0], d.home))
	if len(opts) == 1 {
		d.Target.Hide()
		d.ScopeText.Show()
	} else {
		d.Target.Show()
		d.ScopeText.Hide()
	}
}

// newDurations makes the duration menus, the scope's own end first.
func (d *Dialog) newDurations() {
	d.sessionForMenu = d.newMenu(labels(SessionDurations))
	d.SessionFor = &d.sessionForMenu.Select
	d.SessionFor.SetSelectedIndex(0)
	if d.Device != nil {
		d.deviceForMenu = d.newMenu(labels(DeviceDurations))
		d.DeviceFor = &d.deviceForMenu.Select
		d.DeviceFor.SetSelectedIndex(0)
	}
}

// newNav makes the inbox's navigation, inert until SetNav.
func (d *Dialog) newNav() {
	d.Position = widget.NewLabelWithStyle("1 of 1", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	d.Prev = widget.NewButton(LabelPrev, nil)
	d.Next = widget.NewButton(LabelNext, nil)
	d.DenyAll = widget.NewButton(LabelDenyAll, nil)
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

// Tick sets the agent's clock as seen at now. UI goroutine only.
func (d *Dialog) Tick(now time.Time) {
	if d.Ended() {
		return
	}
	d.Waiting.SetText(WaitingText(d.Request, now))
}

// Update takes r's new waiting calls and repeat count (the same request,
// changed), and shows in place that it ended when r is StateEnded. UI
// goroutine only.
func (d *Dialog) Update(r wire.Request) {
	if r.ID != d.Request.ID {
		return
	}
	d.Request.Waiting, d.Request.WaitUntil, d.Request.Count = r.Waiting, r.WaitUntil, r.Count
	d.Asked.SetText(AskedText(r.Count))
	if r.State == wire.StateEnded {
		d.End(r.Ended)
		return
	}
	d.Tick(time.Now())
}

// End shows, in place of the choices, that the request ended undecided
// and why, with a Close button: nothing can be decided any more, and the
// person who was reading it is told so instead of seeing it vanish. UI
// goroutine only.
func (d *Dialog) End(why string) {
	d.Request.State, d.Request.Ended = wire.StateEnded, why
	d.ended.Store(true)
	d.decided.Store(true) // no choice is sent for an ended request
	d.EndNote.SetText(EndedText(d.Request))
	d.Waiting.SetText("")
	d.Waiting.Hide()
	d.choices.Objects = []fyne.CanvasObject{widget.NewSeparator(), d.EndNote, d.Close}
	d.choices.Refresh()
}

// Ended reports whether the request ended undecided (End); safe from any
// goroutine.
func (d *Dialog) Ended() bool { return d.ended.Load() }

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
	opt := d.scope()
	dec := wire.Decision{Scope: scope, Kind: d.kind(), Path: opt.Path, Code: strings.TrimSpace(d.CodeEntry.Text)}
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
	d.Confirm(FolderConfirmText(Tilde(opt.Folder, d.home), lasts), func() { d.choose(dec) })
}

// scope is the scope option selected in the menu (the narrowest when
// none is).
func (d *Dialog) scope() ScopeOption {
	if i := d.Target.SelectedIndex(); i > 0 && i < len(d.scopes) {
		return d.scopes[i]
	}
	return d.scopes[0]
}

// kind is the grant's kind the person chose: a connection's is always
// its one destination (guard.KindFile).
func (d *Dialog) kind() guard.GrantKind {
	if d.Request.Op == guard.OpConnect {
		return guard.KindFile
	}
	return d.scope().Kind
}

// Content is the dialog's canvas object.
func (d *Dialog) Content() fyne.CanvasObject { return d.content }

// Arm enables the allow buttons and the durable denials. UI goroutine
// only.
func (d *Dialog) Arm() {
	if d.Ended() {
		return
	}
	for _, b := range d.armedButtons() {
		b.Enable()
	}
	d.armed.Store(true)
}

// Armed reports whether the allow buttons are enabled; safe from any
// goroutine.
func (d *Dialog) Armed() bool { return d.armed.Load() }

// armedButtons are the buttons that wait for Arm and, as shortcuts, for
// KeysLive: the allow buttons and the durable denials.
func (d *Dialog) armedButtons() []*widget.Button {
	bs := append(d.allowButtons(), d.DenySession)
	if d.DenyDevice != nil {
		bs = append(bs, d.DenyDevice)
	}
	return bs
}

func (d *Dialog) allowButtons() []*widget.Button {
	bs := []*widget.Button{d.Once, d.Session}
	if d.Device != nil {
		bs = append(bs, d.Device)
	}
	return bs
}

// TypedKey handles keys on the window: Escape hides it and decides
// nothing (an Escape meant for an editor must never deny a request the
// person did not read); Return approves nothing either: it is the key
// most likely typed into a window that appeared under the person's
// fingers.
func (d *Dialog) TypedKey(ev *fyne.KeyEvent) {
	if ev.Name == fyne.KeyEscape {
		d.dismiss()
	}
}

func (d *Dialog) dismiss() {
	if d.Dismiss != nil {
		d.Dismiss()
	}
}

// choose hands dec on, unless a choice is already on its way.
func (d *Dialog) choose(dec wire.Decision) {
	if d.decided.CompareAndSwap(false, true) {
		d.decide(dec)
	}
}

// Decided reports whether a choice is on its way (or the request ended);
// safe from any goroutine.
func (d *Dialog) Decided() bool { return d.decided.Load() }
