package tray

import (
	"time"

	"fyne.io/fyne/v2"
)

// LabelResume is the pause item while prompts are paused.
const LabelResume = "Resume prompts"

// scheduler runs f on the UI goroutine after d, unless the returned
// cancel is called first.
type scheduler func(d time.Duration, f func()) (cancel func())

// afterOnUI is the real scheduler: a timer whose callback the UI
// goroutine runs, where the menu may be changed.
func afterOnUI(d time.Duration, f func()) func() {
	t := time.AfterFunc(d, func() { fyne.Do(f) })
	return func() { t.Stop() }
}

// pauser is the "Pause for 1 hour" item: it pauses the daemon's prompts
// and resumes them when the hour is over or the person picks "Resume
// prompts". UI goroutine only.
type pauser struct {
	item     *fyne.MenuItem
	set      func(bool)
	schedule scheduler
	changed  func()
	end      time.Time // zero: not paused
	cancel   func()
	now      func() time.Time
}

func newPauser(set func(bool), schedule scheduler, changed func()) *pauser {
	p := &pauser{set: set, schedule: schedule, changed: changed, now: time.Now}
	p.item = fyne.NewMenuItem(LabelPause, p.toggle)
	return p
}

func (p *pauser) paused() bool { return !p.end.IsZero() }

// until is when the pause ends; zero when not paused.
func (p *pauser) until() time.Time { return p.end }

func (p *pauser) toggle() {
	if p.paused() {
		p.resume()
		return
	}
	p.end = p.now().Add(PauseFor)
	p.set(true)
	// Each pause has its own timer; resume cancels it, so an old timer
	// never ends a newer pause.
	p.cancel = p.schedule(PauseFor, p.resume)
	p.item.Label = LabelResume + " (paused until " + p.end.Local().Format("15:04") + ")"
	p.changed()
}

func (p *pauser) resume() {
	if !p.paused() {
		return
	}
	if p.cancel != nil {
		p.cancel()
		p.cancel = nil
	}
	p.end = time.Time{}
	p.set(false)
	p.item.Label = LabelPause
	p.changed()
}

// show makes the item and icon say what the daemon says (a pause until
// end, or none) without asking the daemon for anything: an app started
// again shows the pause it did not start, and a pause the daemon ended
// by itself ends here too.
func (p *pauser) show(end time.Time) {
	if p.end.Equal(end) {
		return
	}
	if p.cancel != nil {
		p.cancel()
		p.cancel = nil
	}
	p.end = end
	p.item.Label = LabelPause
	if !end.IsZero() {
		p.item.Label = LabelResume + " (paused until " + end.Local().Format("15:04") + ")"
	}
	p.changed()
}
