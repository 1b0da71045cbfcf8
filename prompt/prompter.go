package prompt

import (
	"fmt"
	"log/slog"
	"pathgrant/wire"
	"sync"
	"time"

	"fyne.io/fyne/v2"
)

// ArmDelay is how long the allow buttons of a new prompt stay disabled.
const ArmDelay = 600 * time.Millisecond

// WindowTitle prefixes every prompt window's title.
const WindowTitle = "pathgrant: approve access"

// Prompter implements ipc.Approver with Fyne windows and notifications. It
// keeps one window per pending request (a queue the user works through in
// any order), never one modal at a time.
type Prompter struct {
	App      fyne.App
	Decide   func(id string, d wire.Decision) error
	Notify   func(title, message string) error // nil: no notifications
	Log      *slog.Logger
	ArmDelay time.Duration
	OnChange func(pending int) // called on the UI goroutine when the count changes
	// Confinement is the daemon's confinement level; an unconfined one
	// puts a banner on every prompt. nil: no banner.
	Confinement func() string
	// AskCode makes each window ask for the request's approval code: set
	// when the windows run outside the daemon (`pathgrant settings`), which
	// never hands them the code.
	AskCode bool

	mu         sync.Mutex
	pending    map[string]wire.Request
	codes      map[string]string // request id -> approval code, shown in its window only
	windows    map[string]*promptWindow
	notifyOnce sync.Once
}

// Show implements ipc.Approver: it notifies and opens the prompt, which
// shows the approval code (the notification never does). It never blocks
// the daemon.
func (p *Prompter) Show(r wire.Request, code string) {
	p.mu.Lock()
	p.init()
	p.pending[r.ID] = r
	p.codes[r.ID] = code
	n := len(p.pending)
	p.mu.Unlock()
	go p.notify(r)
	fyne.Do(func() {
		p.open(r)
		p.changed(n)
	})
}

// Withdraw implements ipc.Approver: the request was decided or expired.
func (p *Prompter) Withdraw(id string) {
	p.mu.Lock()
	delete(p.pending, id)
	delete(p.codes, id)
	w := p.windows[id]
	delete(p.windows, id)
	n := len(p.pending)
	p.mu.Unlock()
	fyne.Do(func() {
		if w != nil {
			w.SetCloseIntercept(nil)
			w.Close()
		}
		p.changed(n)
	})
}

// promptWindow is one open prompt.
type promptWindow struct {
	fyne.Window
	d *Dialog
}

// dialog returns the open dialog of request id, or nil.
func (p *Prompter) dialog(id string) *Dialog {
	p.mu.Lock()
	defer p.mu.Unlock()
	if w, ok := p.windows[id]; ok {
		return w.d
	}
	return nil
}

// ShowAll opens (or raises) a window for every pending request; the tray
// menu calls it. It must run on the UI goroutine.
func (p *Prompter) ShowAll() {
	p.mu.Lock()
	reqs := make([]wire.Request, 0, len(p.pending))
	for _, r := range p.pending {
		reqs = append(reqs, r)
	}
	p.mu.Unlock()
	for _, r := range reqs {
		p.open(r)
	}
}

// Count returns the number of pending requests shown.
func (p *Prompter) Count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.pending)
}

// Open shows r's window, creating it if needed: the settings window's
// Review button. UI goroutine only.
func (p *Prompter) Open(r wire.Request) {
	p.mu.Lock()
	p.init()
	p.pending[r.ID] = r
	p.mu.Unlock()
	p.open(r)
}

// init makes the maps on first use. Called with mu held.
func (p *Prompter) init() {
	if p.pending == nil {
		p.pending, p.codes, p.windows = map[string]wire.Request{}, map[string]string{}, map[string]*promptWindow{}
	}
}

// open shows r's window, creating it if needed. UI goroutine only.
func (p *Prompter) open(r wire.Request) {
	p.mu.Lock()
	w, ok := p.windows[r.ID]
	p.mu.Unlock()
	if ok {
		w.Show()
		return
	}
	d := NewDialog(r, func(dec wire.Decision) { p.decided(r, dec) })
	p.mu.Lock()
	code := p.codes[r.ID]
	p.mu.Unlock()
	d.SetCode(code)
	if p.AskCode && code == "" {
		d.AskCode()
	}
	if p.Confinement != nil {
		d.SetConfinement(p.Confinement())
	}
	w = &promptWindow{Window: p.App.NewWindow(WindowTitle + " — " + string(r.Op) + " " + r.Path), d: d}
	w.SetContent(d.Content())
	w.SetCloseIntercept(func() { d.Closed() })
	w.Canvas().SetOnTypedKey(d.TypedKey)
	w.Resize(fyne.NewSize(520, d.Content().MinSize().Height))
	p.mu.Lock()
	p.windows[r.ID] = w
	p.mu.Unlock()
	w.Show()
	time.AfterFunc(p.armDelay(), func() { fyne.Do(d.Arm) })
	go p.countdown(r.ID, d)
}

// countdown keeps d's "open until" current once a second, until the
// user decides, its window goes or the request expires.
func (p *Prompter) countdown(id string, d *Dialog) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for now := range t.C {
		if d.Decided() || p.dialog(id) != d {
			return
		}
		fyne.Do(func() { d.Tick(now) })
		if !now.Before(d.Request.Expires) {
			return
		}
	}
}

func (p *Prompter) armDelay() time.Duration {
	if p.ArmDelay > 0 {
		return p.ArmDelay
	}
	return ArmDelay
}

// decided hands the decision to the daemon off the UI goroutine; the
// daemon's Withdraw then closes the window. A waiting agent gets the
// answer from the daemon itself, so no second notification is sent.
func (p *Prompter) decided(r wire.Request, dec wire.Decision) {
	go func() {
		if err := p.Decide(r.ID, dec); err != nil {
			// Already decided elsewhere or expired: nothing is granted by
			// this window any more, so it goes away.
			p.log().Warn("decision not applied", "request", r.ID, "scope", dec.Scope, "err", err)
			p.Withdraw(r.ID)
		}
	}()
}

// NotifyTitle is the summary of the one notification per new request.
const NotifyTitle = "pathgrant: approval needed"

func (p *Prompter) notify(r wire.Request) {
	p.send(NotifyTitle, fmt.Sprintf("%s wants to %s %s", who(r), r.Op, r.Path))
}

// send posts a notification; when there is no notification server the app
// keeps working and says so once.
func (p *Prompter) send(title, msg string) {
	if p.Notify == nil {
		return
	}
	if err := p.Notify(title, msg); err != nil {
		p.notifyOnce.Do(func() {
			p.log().Warn("notifications unavailable; prompts still open as windows", "err", err)
		})
	}
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
