package prompt

import (
	"fmt"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"

	"pathgrant/wire"
)

// The inbox window's width, and the height beyond which its details
// scroll when the work area is unknown: with the window's title bar and a
// panel, a 1366x768 screen holds it whole, and the choices, at the bottom
// edge, stay in sight. TallestHeight bounds it on a larger work area.
const (
	WindowWidth   = 560
	MaxHeight     = 620
	TallestHeight = 760
)

// present shows the inbox at request id (the oldest when id is not
// pending), with a fresh dialog whose allow buttons arm after the delay:
// every change of the request shown, and every raise, re-arms. activate
// says the person asked for the window (the tray, a notification's
// Open): only then does it take the keyboard. UI goroutine only.
func (p *Prompter) present(id string, activate bool) {
	r, ok := p.request(id)
	if !ok {
		if r, ok = p.request(p.oldest()); !ok {
			p.hide()
			return
		}
	}
	p.mu.Lock()
	codes := p.codes[r.ID]
	p.mu.Unlock()
	w := p.window()
	d := p.newDialog(r, codes)
	wasVisible := p.visible
	p.dlg, p.visible = d, true
	p.renav()
	trap := newKeyTrap(d)
	w.SetContent(container.NewStack(trap, d.Content()))
	d.Refocus = func() { w.Canvas().Focus(trap) }
	d.Refocus() // the allow keys act KeyDelay after this (keys.go)
	height := min(d.Height(), p.maxHeight(w))
	if wasVisible && height <= p.height {
		height = p.height // the choices stay where they were
	}
	w.Resize(fyne.NewSize(WindowWidth, height))
	p.reveal(w, activate)
	if !wasVisible || height > p.height {
		// shown again, or taller: centred, so that it stays on the screen
		// wherever it was (a window that grew downwards ran off it)
		w.CenterOnScreen()
	}
	p.height = height
	time.AfterFunc(p.armDelay(), func() {
		p.onUI(func() {
			if p.dlg == d {
				d.Arm()
			}
		})
	})
	p.tick()
}

// maxHeight is the tallest the window's content may be: what the work
// area holds (FitHeight), at most TallestHeight; MaxHeight when unknown.
func (p *Prompter) maxHeight(w fyne.Window) float32 {
	if p.FitHeight != nil {
		if h := p.FitHeight(w); h > 0 {
			return min(h, TallestHeight)
		}
	}
	return MaxHeight
}

// newDialog makes the dialog of r with its codes, wired to the inbox.
func (p *Prompter) newDialog(r wire.Request, codes []wire.ChoiceCode) *Dialog {
	d := NewDialog(r, nil)
	d.decide = func(dec wire.Decision) { go p.apply(r.ID, dec, d) }
	d.Confirm = p.confirm
	d.Dismiss = p.closed
	d.Close.OnTapped = func() { p.closeEnded(d) }
	d.KeyDelay = p.armDelay()
	d.SetCode(codes, p.App.Clipboard())
	if p.AskCode && len(codes) == 0 {
		d.AskCode()
	}
	if p.Confinement != nil {
		d.SetConfinement(p.Confinement())
	}
	if r.State == wire.StateEnded {
		d.End(r.Ended)
	}
	return d
}

// reveal shows the window: taking the keyboard only when activate (the
// person asked for it), else as Reveal draws attention without it.
func (p *Prompter) reveal(w fyne.Window, activate bool) {
	if p.Reveal != nil {
		p.Reveal(w, activate)
		return
	}
	w.Show()
	if activate {
		w.RequestFocus()
	}
}

// renav brings the shown dialog's "i of n", its navigation and the title
// up to date after the inbox changed. UI goroutine only.
func (p *Prompter) renav() {
	d := p.dlg
	if d == nil {
		return
	}
	id := d.Request.ID
	i, n := p.position(id)
	if i < 0 { // an ended request, kept in sight until the person closes it
		d.Position.SetText(EndedPosition(n))
		d.Prev.Disable()
		d.Next.OnTapped = func() { p.present(p.oldest(), false) }
		enable(d.Next, n > 0)
		p.window().SetTitle(WindowTitle)
		return
	}
	d.SetNav(i, n,
		func() { p.step(id, -1) },
		func() { p.step(id, 1) },
		func() { p.denySession(d.Request.Session) })
	p.window().SetTitle(title(i, n))
}

// EndedPosition is the position line of an ended request no longer in
// the inbox, with how many still wait.
func EndedPosition(waiting int) string {
	switch waiting {
	case 0:
		return "Ended"
	case 1:
		return "Ended · 1 other waits"
	}
	return fmt.Sprintf("Ended · %d others wait", waiting)
}

// closeEnded is an ended request's Close: it leaves the inbox, which
// goes on with the oldest request, or hides. UI goroutine only.
func (p *Prompter) closeEnded(d *Dialog) {
	p.forget(d.Request.ID)
	if p.dlg != d {
		return
	}
	p.present(p.oldest(), false)
	p.changed(p.Count())
}

// step moves the window to the previous (-1) or next (1) request.
func (p *Prompter) step(id string, by int) {
	if next := p.at(id, by); next != "" {
		p.present(next, false)
	}
}

// denySession denies every pending request of session: "Deny all from
// this session".
func (p *Prompter) denySession(session string) {
	ids := p.sessionIDs(session)
	go func() {
		for _, id := range ids {
			p.apply(id, wire.Decision{Scope: "deny"}, nil)
		}
	}()
}

// apply hands a decision to the daemon, off the UI goroutine. Once
// accepted the request leaves the inbox (in process the daemon withdraws
// it too). A refusal (a missing or wrong code, a request decided
// elsewhere) is shown in the window, which stays open on the still
// pending request: nothing closes without a decision.
func (p *Prompter) apply(id string, dec wire.Decision, d *Dialog) {
	if err := p.Decide(id, dec); err != nil {
		p.log().Warn("decision not applied", "request", id, "scope", dec.Scope, "err", err)
		p.onUI(func() {
			if d != nil && p.dlg == d {
				d.Refused(err)
			}
		})
		return
	}
	p.Withdraw(id)
}

// hide hides the window, which has nothing to show. UI goroutine only.
func (p *Prompter) hide() {
	p.dlg, p.visible = nil, false
	if p.win != nil {
		p.win.Hide()
	}
}

// closed is the window's close button and Escape: the requests stay
// pending, so the window only hides (an ended request it showed leaves
// the inbox), and the person is told how many still wait and how to bring
// it back.
func (p *Prompter) closed() {
	if p.dlg != nil && p.dlg.Ended() {
		p.forget(p.dlg.Request.ID)
		p.changed(p.Count())
	}
	p.hide()
	if n := p.Count(); n > 0 {
		msg := StillWaitingText(n)
		p.log().Info("inbox hidden", "pending", n)
		go p.send("", StillWaitingTitle, msg)
	}
}

// StillWaitingTitle is the notice when the inbox is closed with requests
// pending.
const StillWaitingTitle = "pathgrant: requests still wait"

// StillWaitingText says how many requests wait and how to reopen them.
func StillWaitingText(n int) string {
	what := "1 request still waits"
	if n != 1 {
		what = fmt.Sprintf("%d requests still wait", n)
	}
	return what + " for your decision: open them from the pathgrant tray icon or with 'pathgrant settings'."
}

// tick keeps the shown dialog's clocks current once a second while any
// request is pending: one ticker for the window.
func (p *Prompter) tick() {
	if !p.ticking.CompareAndSwap(false, true) {
		return
	}
	go func() {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for now := range t.C {
			if p.Count() == 0 {
				p.ticking.Store(false)
				if p.Count() == 0 || !p.ticking.CompareAndSwap(false, true) {
					return
				}
			}
			p.onUI(func() {
				if p.dlg != nil {
					p.dlg.Tick(now)
				}
			})
		}
	}()
}

// NotifyTitle is the summary of the one notification per new request.
const NotifyTitle = "pathgrant: approval needed"

// NotifyText is the body of r's notification: who wants what, never the
// code.
func NotifyText(r wire.Request) string {
	return fmt.Sprintf("%s wants to %s %s", AgentName(r.Agent), Verb(r), Tilde(r.Path, home()))
}

func (p *Prompter) notify(r wire.Request) { p.send(r.ID, NotifyTitle, NotifyText(r)) }

// send posts a notification; when there is no notification server the app
// keeps working and says so once.
func (p *Prompter) send(id, title, msg string) {
	if p.Notify == nil {
		return
	}
	if err := p.Notify(id, title, msg); err != nil {
		p.notifyOnce.Do(func() {
			p.log().Warn("notifications unavailable; requests still open in the inbox window", "err", err)
		})
	}
}
