package prompt

import (
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/widget"

	"pathgrant/wire"
)

// ArmDelay is how long the allow buttons stay disabled after the window
// shows a request: a click meant for the request shown before cannot
// approve the one that slid under the cursor.
const ArmDelay = 600 * time.Millisecond

// WindowTitle prefixes the inbox window's title, which goes on with the
// position, "(1 of 5)".
const WindowTitle = "pathgrant: approve access"

// Prompter implements engine.Approver and engine.Updater with one inbox
// window for every pending request of every agent, shown one at a time
// in the order they came, and one notification per new request.
type Prompter struct {
	App    fyne.App
	Decide func(id string, d wire.Decision) error
	// Notify posts a desktop notification about request id ("" for a
	// notice about no request); nil: no notifications.
	Notify   func(id, title, message string) error
	Log      *slog.Logger
	ArmDelay time.Duration
	OnChange func(pending int) // called on the UI goroutine when the count changes
	// Confinement is the daemon's confinement level; an unconfined one
	// puts a banner on the window. nil: no banner.
	Confinement func() string
	// AskCode makes the window ask for each request's approval code: set
	// when it runs outside the daemon (`pathgrant settings`), which never
	// hands it the code.
	AskCode bool
	// Reveal shows the inbox window: with activate (the person asked for
	// it) taking the keyboard, else without taking it from the
	// application the person is typing in, drawing attention as the
	// desktop allows. nil: Show, and RequestFocus with activate.
	Reveal func(w fyne.Window, activate bool)
	// FitHeight is the tallest the window's content may be on this
	// screen (its work area less a title bar): the window is that tall at
	// most (and TallestHeight), its details scrolling. nil or 0: MaxHeight.
	FitHeight func(w fyne.Window) float32
	// Announce posts a request's notification, worded by NoticeFor, in
	// place of Notify; Unannounce takes it back when the request leaves
	// the inbox. nil: Notify alone, never taken back.
	Announce   func(Notice) error
	Unannounce func(id string)

	mu      sync.Mutex
	order   []string // pending request ids, oldest first
	pending map[string]wire.Request
	codes   map[string][]wire.ChoiceCode // request id -> approval codes, shown in its window only

	// The window and the request it shows: UI goroutine only.
	win     fyne.Window
	dlg     *Dialog
	visible bool
	// height is the window's content height as last set: while the
	// window stays open it never shrinks, so the choices stay in place.
	height float32

	ticking    atomic.Bool
	notifyOnce sync.Once
	// do runs f on the UI goroutine; nil is fyne.Do. Tests serialise
	// through it, as the toolkit's own loop does.
	do func(f func())
}

// onUI runs f on the UI goroutine.
func (p *Prompter) onUI(f func()) {
	if p.do != nil {
		p.do(f)
		return
	}
	fyne.Do(f)
}

// Show implements engine.Approver: the request joins the inbox and gets
// its notification (which never carries the code). The window opens at
// it unless it already shows another request. It never blocks the daemon.
func (p *Prompter) Show(r wire.Request, codes []wire.ChoiceCode) {
	p.mu.Lock()
	p.add(r)
	p.codes[r.ID] = codes
	n := len(p.order)
	p.mu.Unlock()
	go p.announce(r)
	p.onUI(func() {
		if p.visible && p.dlg != nil && !p.dlg.Ended() {
			p.renav()
		} else { // hidden, or showing a request that ended: the new one takes its place
			p.present(r.ID, false)
		}
		p.changed(n)
	})
}

// Update implements engine.Updater: a pending request's waiting calls or
// repeats changed. It never blocks the daemon.
func (p *Prompter) Update(r wire.Request) {
	p.mu.Lock()
	old, ok := p.pending[r.ID]
	if ok {
		old.Waiting, old.WaitUntil, old.Count = r.Waiting, r.WaitUntil, r.Count
		if r.State == wire.StateEnded { // shown in place (Dialog.End) until withdrawn or closed
			old.State, old.Ended = r.State, r.Ended
		}
		p.pending[r.ID] = old
	}
	p.mu.Unlock()
	if !ok {
		return
	}
	if r.State == wire.StateEnded {
		p.unannounce(r.ID) // the window says so in place; the notification would only mislead
	}
	p.onUI(func() {
		if p.dlg != nil {
			p.dlg.Update(r)
		}
	})
}

// Withdraw implements engine.Approver: the request was decided or expired.
// The window goes on with the next request, or hides when none is left;
// a request that ended undecided (Update with StateEnded) stays in sight,
// saying so, until the person closes it.
func (p *Prompter) Withdraw(id string) {
	p.mu.Lock()
	i := slices.Index(p.order, id)
	if i >= 0 {
		p.order = slices.Delete(p.order, i, i+1)
	}
	delete(p.pending, id)
	delete(p.codes, id)
	n, next := len(p.order), ""
	if n > 0 {
		next = p.order[min(max(i, 0), n-1)]
	}
	p.mu.Unlock()
	p.unannounce(id)
	p.onUI(func() {
		switch {
		case p.dlg == nil || p.dlg.Request.ID != id || p.dlg.Ended():
			p.renav()
		case next != "" && p.visible:
			p.present(next, false)
		default:
			p.hide()
		}
		p.changed(n)
	})
}

// add queues r, or refreshes it if it is already queued. Called with mu
// held.
func (p *Prompter) add(r wire.Request) {
	if p.pending == nil {
		p.pending, p.codes = map[string]wire.Request{}, map[string][]wire.ChoiceCode{}
	}
	if _, ok := p.pending[r.ID]; !ok {
		p.order = append(p.order, r.ID)
	}
	p.pending[r.ID] = r
}

// ShowAll shows the inbox at the request it shows, or the oldest: the
// tray menu and a raise call it. UI goroutine only.
func (p *Prompter) ShowAll() {
	id := ""
	if p.dlg != nil {
		id = p.dlg.Request.ID
	}
	p.present(id, true)
}

// Open adds r to the inbox (when it is not there yet) and shows the inbox
// at it: the settings window's Review button. UI goroutine only.
func (p *Prompter) Open(r wire.Request) {
	p.mu.Lock()
	p.add(r)
	n := len(p.order)
	p.mu.Unlock()
	p.present(r.ID, true)
	p.changed(n)
}

// OpenID shows the inbox at pending request id (a notification's Open
// action); false when it is not pending. UI goroutine only.
func (p *Prompter) OpenID(id string) bool {
	if _, ok := p.request(id); !ok {
		return false
	}
	p.present(id, true)
	return true
}

// DenyID denies pending request id (a notification's Deny action): a
// denial needs no code. Safe from any goroutine; it does not block.
func (p *Prompter) DenyID(id string) {
	if _, ok := p.request(id); ok {
		go p.apply(id, wire.Decision{Scope: "deny"}, nil)
	}
}

// Current is the request the window shows, and whether it is shown. UI
// goroutine only.
func (p *Prompter) Current() (*Dialog, bool) { return p.dlg, p.visible }

func (p *Prompter) armDelay() time.Duration {
	if p.ArmDelay > 0 {
		return p.ArmDelay
	}
	return ArmDelay
}

func (p *Prompter) changed(n int) {
	if p.OnChange != nil {
		p.OnChange(n)
	}
}

func (p *Prompter) log() *slog.Logger {
	if p.Log != nil {
		return p.Log
	}
	return slog.Default()
}

// window makes the inbox window once, centred on the screen (with
// MaxHeight, inside a 1366x768 screen's work area): closing it hides it
// (the requests stay pending, and the person is told so), and Alt+key
// presses its buttons.
func (p *Prompter) window() fyne.Window {
	if p.win != nil {
		return p.win
	}
	w := p.App.NewWindow(WindowTitle)
	w.SetCloseIntercept(p.closed)
	w.CenterOnScreen()
	w.Canvas().SetOnTypedKey(func(ev *fyne.KeyEvent) {
		if p.dlg != nil {
			p.dlg.TypedKey(ev)
		}
	})
	for key := range shortcutKeys {
		w.Canvas().AddShortcut(&desktop.CustomShortcut{KeyName: key, Modifier: fyne.KeyModifierAlt}, func(fyne.Shortcut) {
			if p.dlg != nil {
				p.dlg.Press(key)
			}
		})
	}
	p.win = w
	return w
}

// Answers of the folder confirmation: No is the highlighted one, since a
// durable grant of a whole folder is the one answer worth a second look.
const (
	LabelConfirmNo  = "No"
	LabelConfirmYes = "Yes"
)

// confirm asks the second question of a durable folder grant, No the
// highlighted answer.
func (p *Prompter) confirm(message string, ok func()) {
	var dlg *dialog.CustomDialog
	no := &widget.Button{Text: LabelConfirmNo, Importance: widget.HighImportance, OnTapped: func() { dlg.Hide() }}
	yes := &widget.Button{Text: LabelConfirmYes, OnTapped: func() { dlg.Hide(); ok() }}
	dlg = dialog.NewCustomWithoutButtons("Grant the whole folder?", wrapLabel(message), p.window())
	dlg.SetButtons([]fyne.CanvasObject{no, yes})
	dlg.Resize(fyne.NewSize(WindowWidth-40, 0))
	dlg.Show()
}

// title is the window's title at position i of n: xdotool and a person's
// task bar read "(1 of 5)" there.
func title(i, n int) string {
	return fmt.Sprintf("%s (%d of %d)", WindowTitle, i+1, n)
}
