package prompt

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"pathgrant/guard"
	"pathgrant/wire"
)

// decider records the decisions the Prompter hands the daemon, and
// answers each with the next error of errs (nil when none is left).
type decider struct {
	mu   sync.Mutex
	got  []string // "id scope"
	errs []error
}

func (d *decider) decide(id string, dec wire.Decision) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.got = append(d.got, id+" "+dec.Scope)
	if len(d.errs) == 0 {
		return nil
	}
	err := d.errs[0]
	d.errs = d.errs[1:]
	return err
}

func (d *decider) decisions() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.got...)
}

// notices records notifications: "id|title|message".
type notices struct {
	mu  sync.Mutex
	got []string
}

func (n *notices) notify(id, title, msg string) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.got = append(n.got, id+"|"+title+"|"+msg)
	return nil
}

func (n *notices) list() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]string(nil), n.got...)
}

// harness is a Prompter under test whose UI work (its own and the
// test's) runs one at a time, as on the toolkit's loop: the test driver
// runs fyne.Do on the caller's goroutine.
type harness struct {
	p   *Prompter
	dec *decider
	ns  *notices
	mu  sync.Mutex
}

func (h *harness) do(f func()) {
	h.mu.Lock()
	defer h.mu.Unlock()
	f()
}

func newTestPrompter(t *testing.T) *harness {
	t.Helper()
	a := test.NewTempApp(t)
	h := &harness{dec: &decider{}, ns: &notices{}}
	h.p = &Prompter{App: a, Decide: h.dec.decide, Notify: h.ns.notify, ArmDelay: time.Millisecond, do: h.do}
	t.Cleanup(func() {
		for _, id := range h.p.Pending() {
			h.p.Withdraw(id)
		}
	})
	return h
}

// current is the dialog the window shows (nil when hidden).
func (h *harness) current() *Dialog {
	var d *Dialog
	h.do(func() {
		if cur, visible := h.p.Current(); visible {
			d = cur
		}
	})
	return d
}

// shown is the request the window shows, "" when it is hidden.
func (h *harness) shown() string {
	if d := h.current(); d != nil {
		return d.Request.ID
	}
	return ""
}

func (h *harness) tap(b func(*Dialog) *widget.Button) {
	h.do(func() {
		d, _ := h.p.Current()
		test.Tap(b(d))
	})
}

// read runs f on the UI for a value.
func (h *harness) read(f func() string) string {
	var s string
	h.do(func() { s = f() })
	return s
}

func (h *harness) title() string { return h.read(func() string { return h.p.win.Title() }) }

// testCodes are approval codes for every choice a read of a file offers,
// each tag and its choice's number ("K7MP00" for once).
func testCodes(tag string) []wire.ChoiceCode {
	var codes []wire.ChoiceCode
	for _, scope := range []string{"once", "session", "device"} {
		for _, kind := range []guard.GrantKind{guard.KindFile, guard.KindFolder} {
			for _, lasts := range wire.OfferedFor(scope) {
				codes = append(codes, wire.ChoiceCode{Choice: wire.Choice{Scope: scope, Kind: kind, For: lasts}, Code: fmt.Sprintf("%s%02d", tag, len(codes))})
			}
		}
	}
	return codes
}

func request(id, session string) wire.Request {
	r := readRequest()
	r.ID, r.Session = id, session
	r.Path = "/home/u/Downloads/" + id + ".csv"
	r.Suggested.Path = r.Path
	return r
}

// eventually polls cond (on the UI) for up to five seconds.
func (h *harness) eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		ok := false
		h.do(func() { ok = cond() })
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("never: %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

var (
	next    = func(d *Dialog) *widget.Button { return d.Next }
	prev    = func(d *Dialog) *widget.Button { return d.Prev }
	once    = func(d *Dialog) *widget.Button { return d.Once }
	denyAll = func(d *Dialog) *widget.Button { return d.DenyAll }
)

// TestInboxOneWindow: requests of several agents queue in one window,
// which stays on the request it shows, says where it is, and re-arms
// whenever it moves to another request.
func TestInboxOneWindow(t *testing.T) {
	h := newTestPrompter(t)
	before := len(h.p.App.Driver().AllWindows())
	for _, id := range []string{"a", "b", "c"} {
		h.p.Show(request(id, "s-"+id), testCodes("C"+id))
	}
	if n := len(h.p.App.Driver().AllWindows()) - before; n != 1 {
		t.Fatalf("%d new windows, want one inbox", n)
	}
	if h.shown() != "a" || h.title() != WindowTitle+" (1 of 3)" {
		t.Fatalf("shows %q titled %q", h.shown(), h.title())
	}
	h.p.ArmDelay = time.Hour // the arming after the delay: TestInboxArms
	h.do(func() { h.p.dlg.Arm() })
	h.tap(next)
	d := h.current()
	if pos := h.read(func() string { return d.Position.Text }); h.shown() != "b" || pos != "2 of 3" || d.Armed() {
		t.Fatalf("after Next: %q at %q, armed %v (want b, 2 of 3, not yet armed)", h.shown(), pos, d.Armed())
	}
	if code := h.read(func() string { return d.Code.Text }); !strings.Contains(code, "--scope once  ") || !strings.Contains(code, " Cb00") || strings.Contains(code, "Ca") {
		t.Errorf("code %q: the window shows another request's code", code)
	}
	h.tap(prev)
	if h.shown() != "a" {
		t.Fatalf("after Previous: %q", h.shown())
	}
	h.eventually(t, "one notification per request", func() bool { return len(h.ns.list()) == 3 })
}

// TestInboxArms: the window's allow buttons arm after the delay, not
// before.
func TestInboxArms(t *testing.T) {
	h := newTestPrompter(t)
	h.p.ArmDelay = 500 * time.Millisecond
	h.p.Show(request("a", "s"), nil)
	d := h.current()
	if d.Armed() || h.read(func() string { return fmt.Sprint(d.Once.Disabled()) }) != "true" {
		t.Fatal("armed at once")
	}
	h.eventually(t, "armed after the delay", func() bool { return d.Armed() && !d.Once.Disabled() })
}

// TestInboxNotifications: one notification per new request, with its id
// for the actions and never its code; none for an update or a repeat.
func TestInboxNotifications(t *testing.T) {
	h := newTestPrompter(t)
	r := request("a", "s")
	codes := testCodes("K7MP")
	h.p.Show(r, codes)
	r.Waiting, r.WaitUntil, r.Count = 5, time.Now().Add(time.Minute), 5
	h.p.Update(r)
	h.eventually(t, "a notification", func() bool { return len(h.ns.list()) > 0 })
	time.Sleep(50 * time.Millisecond)
	got := h.ns.list()
	if len(got) != 1 || !strings.HasPrefix(got[0], "a|"+NotifyTitle+"|Claude wants to read ") || strings.Contains(got[0], "K7MP") {
		t.Fatalf("notifications %q", got)
	}
	if w := h.read(func() string { return h.p.dlg.Waiting.Text }); !strings.HasSuffix(w, "(5 calls wait)") {
		t.Fatalf("update not shown: %q", w)
	}
}

// TestInboxWithdraw: a decided request leaves the queue; the window goes
// on with the next one, and hides when none is left.
func TestInboxWithdraw(t *testing.T) {
	h := newTestPrompter(t)
	for _, id := range []string{"a", "b", "c"} {
		h.p.Show(request(id, "s"), nil)
	}
	h.p.Withdraw("b") // not the one shown
	if pos := h.read(func() string { return h.p.dlg.Position.Text }); h.shown() != "a" || pos != "1 of 2" {
		t.Fatalf("after withdrawing b: %q at %q", h.shown(), pos)
	}
	h.p.Withdraw("a")
	if h.shown() != "c" || h.title() != WindowTitle+" (1 of 1)" {
		t.Fatalf("after withdrawing a: %q %q", h.shown(), h.title())
	}
	h.p.Withdraw("c")
	if h.shown() != "" || h.p.Count() != 0 {
		t.Fatalf("empty inbox still shows %q", h.shown())
	}
}

// TestInboxRefusedDecision: in a window outside the daemon, an approval
// the daemon refuses (a wrong code) shows the error in the window, which
// stays open on the still pending request; the next try goes through.
func TestInboxRefusedDecision(t *testing.T) {
	h := newTestPrompter(t)
	h.p.AskCode = true
	h.dec.errs = []error{errors.New("wrong code\n(403)")}
	h.p.Show(request("a", "s"), nil)
	d := h.current()
	if h.read(func() string { return fmt.Sprint(d.CodeEntry.Visible()) }) != "true" {
		t.Fatal("no code entry")
	}
	h.eventually(t, "armed", d.Armed)
	h.do(func() { test.Type(d.CodeEntry, "BADCODE1") })
	h.tap(once)
	h.eventually(t, "the error in the window", func() bool { return d.Error.Visible() && d.Error.Text != "" })
	if e := h.read(func() string { return d.Error.Text }); e != "wrong code" || h.shown() != "a" || h.p.Count() != 1 {
		t.Fatalf("error %q, shows %q, %d pending", e, h.shown(), h.p.Count())
	}
	h.tap(once)
	h.eventually(t, "the request decided, the window hidden", func() bool { return h.p.Count() == 0 && !h.p.visible })
	if got := h.dec.decisions(); len(got) != 2 || h.shown() != "" {
		t.Fatalf("decisions %q, shows %q", got, h.shown())
	}
}

// TestInboxDenySession: "Deny all from this session" denies every pending
// request of the shown request's session, and no other.
func TestInboxDenySession(t *testing.T) {
	h := newTestPrompter(t)
	h.p.Show(request("a", "s1"), nil)
	h.p.Show(request("b", "s2"), nil)
	h.p.Show(request("c", "s1"), nil)
	h.tap(denyAll)
	h.eventually(t, "both denied", func() bool { return h.p.Count() == 1 && h.p.dlg != nil && h.p.dlg.Request.ID == "b" })
	if got := h.dec.decisions(); strings.Join(got, ",") != "a deny,c deny" || h.p.Pending()[0] != "b" {
		t.Fatalf("decisions %q, left %q", got, h.p.Pending())
	}
	if h.shown() != "b" {
		t.Fatalf("shows %q, want the other session's request", h.shown())
	}
}

// TestInboxClose: closing the window with requests pending decides
// nothing: it hides, says how many wait and how to reopen, and ShowAll
// brings it back.
func TestInboxClose(t *testing.T) {
	h := newTestPrompter(t)
	h.p.Show(request("a", "s"), nil)
	h.p.Show(request("b", "s"), nil)
	h.do(h.p.closed)
	h.eventually(t, "the notice", func() bool { return len(h.ns.list()) == 3 })
	if h.shown() != "" || h.p.Count() != 2 || len(h.dec.decisions()) != 0 {
		t.Fatalf("after close: shows %q, %d pending, decisions %q", h.shown(), h.p.Count(), h.dec.decisions())
	}
	found := false
	for _, n := range h.ns.list() {
		found = found || strings.HasPrefix(n, "|"+StillWaitingTitle+"|2 requests still wait") && strings.Contains(n, "pathgrant settings")
	}
	if !found {
		t.Fatalf("notices %q, want one that two requests still wait", h.ns.list())
	}
	h.do(h.p.ShowAll)
	if h.shown() != "a" {
		t.Fatalf("ShowAll shows %q", h.shown())
	}
}

// TestInboxActions: a notification's Open shows the inbox at its request;
// its Deny denies that request, once, with no code.
func TestInboxActions(t *testing.T) {
	h := newTestPrompter(t)
	h.p.Show(request("a", "s"), nil)
	h.p.Show(request("b", "s"), nil)
	var opened, unknown bool
	h.do(func() { opened, unknown = h.p.OpenID("b"), h.p.OpenID("gone") })
	if !opened || unknown || h.shown() != "b" {
		t.Fatalf("Open shows %q (unknown opened: %v)", h.shown(), unknown)
	}
	h.p.DenyID("a")
	h.eventually(t, "a denied", func() bool { return h.p.Count() == 1 })
	h.p.DenyID("a")
	time.Sleep(50 * time.Millisecond)
	if got := h.dec.decisions(); len(got) != 1 || got[0] != "a deny" {
		t.Fatalf("decisions %q", got)
	}
}

// trap is the window's key trap, which holds its keyboard focus.
func (h *harness) trap(t *testing.T) *keyTrap {
	t.Helper()
	var trap *keyTrap
	h.do(func() { trap, _ = h.p.window().Canvas().Focused().(*keyTrap) })
	if trap == nil {
		t.Fatal("the window's focus is not the key trap")
	}
	return trap
}

// press is Alt+key on the window, as its canvas shortcut calls it.
func (h *harness) press(key fyne.KeyName) {
	h.do(func() {
		if h.p.dlg != nil {
			h.p.dlg.Press(key)
		}
	})
}

// armed waits until the shown dialog's allow buttons armed and its keys
// are live.
func (h *harness) armed(t *testing.T) {
	t.Helper()
	h.eventually(t, "armed, keys live", func() bool { return h.p.dlg != nil && h.p.dlg.Armed() && h.p.dlg.KeysLive() })
}

// TestInboxKeyboard: from the keyboard alone, with no pointer anywhere,
// Alt+O allows once as soon as the buttons armed and the window had the
// keyboard for the delay; never before, never after the window lost the
// keyboard, and again after Next and Previous once re-armed. Typed text,
// Space, Tab and Return approve nothing.
func TestInboxKeyboard(t *testing.T) {
	tests := []struct {
		name  string
		steps func(t *testing.T, h *harness)
		want  string // the decisions, "" for none
	}{
		{"armed: Alt+O allows once", func(t *testing.T, h *harness) {
			h.armed(t)
			h.press(fyne.KeyO)
		}, "a once"},
		{"before arming: nothing", func(t *testing.T, h *harness) {
			h.press(fyne.KeyO)
			h.press(fyne.KeyS)
			h.press(fyne.KeyA)
		}, ""},
		{"armed: Alt+S allows for the session", func(t *testing.T, h *harness) {
			h.armed(t)
			h.press(fyne.KeyS)
		}, "a session"},
		{"the keyboard lost: nothing", func(t *testing.T, h *harness) {
			h.armed(t)
			h.trap(t).FocusLost()
			h.press(fyne.KeyO)
		}, ""},
		{"the keyboard back: not at once", func(t *testing.T, h *harness) {
			h.armed(t)
			h.p.ArmDelay = time.Hour
			h.do(func() { h.p.dlg.KeyDelay = time.Hour })
			h.trap(t).FocusGained()
			h.press(fyne.KeyO)
		}, ""},
		{"the keyboard back: after the delay", func(t *testing.T, h *harness) {
			h.armed(t)
			h.trap(t).FocusLost()
			h.trap(t).FocusGained()
			h.armed(t)
			h.press(fyne.KeyO)
		}, "a once"},
		{"Next: not at once, then re-armed", func(t *testing.T, h *harness) {
			h.armed(t)
			h.press(fyne.KeyN)
			h.press(fyne.KeyO)
			h.armed(t)
			h.press(fyne.KeyP)
			h.armed(t)
			h.press(fyne.KeyN)
			h.armed(t)
			h.press(fyne.KeyO)
		}, "b once"},
		{"typed text, Space, Tab and Return: nothing", func(t *testing.T, h *harness) {
			h.armed(t)
			trap := h.trap(t)
			h.do(func() {
				for _, r := range "osadr \n" {
					trap.TypedRune(r)
				}
				for _, k := range []fyne.KeyName{fyne.KeyReturn, fyne.KeyEnter, fyne.KeySpace, fyne.KeyTab, fyne.KeyO} {
					trap.TypedKey(&fyne.KeyEvent{Name: k})
				}
			})
		}, ""},
		{"Alt+D denies", func(t *testing.T, h *harness) { h.press(fyne.KeyD) }, "a deny"},
		{"Alt+E before arming: nothing (a durable denial arms too)", func(t *testing.T, h *harness) {
			h.press(fyne.KeyE)
			h.press(fyne.KeyR)
		}, ""},
		{"armed: Alt+E denies on this device", func(t *testing.T, h *harness) {
			h.armed(t)
			h.press(fyne.KeyE)
		}, "a deny"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newTestPrompter(t)
			h.p.ArmDelay = 30 * time.Millisecond
			h.p.Show(request("a", "s"), nil)
			h.p.Show(request("b", "s"), nil)
			tt.steps(t, h)
			time.Sleep(60 * time.Millisecond)
			if got := strings.Join(h.dec.decisions(), ","); got != tt.want {
				t.Fatalf("decisions %q, want %q", got, tt.want)
			}
		})
	}
}

// TestInboxEscape: Escape, on the trap or the window, hides the window
// and decides nothing: the request stays pending, ShowAll brings it back.
func TestInboxEscape(t *testing.T) {
	h := newTestPrompter(t)
	h.p.ArmDelay = 0
	h.p.Show(request("a", "s"), nil)
	trap := h.trap(t)
	if !trap.AcceptsTab() {
		t.Fatal("the trap lets Tab walk to a button")
	}
	h.do(func() { trap.TypedKey(&fyne.KeyEvent{Name: fyne.KeyEscape}) })
	time.Sleep(30 * time.Millisecond)
	if got := h.dec.decisions(); len(got) != 0 || h.shown() != "" || h.p.Count() != 1 {
		t.Fatalf("after Escape: decisions %q, shows %q, %d pending", got, h.shown(), h.p.Count())
	}
	h.do(h.p.ShowAll)
	h.do(func() {
		h.p.win.Canvas().(interface{ OnTypedKey() func(*fyne.KeyEvent) }).OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeyEscape})
	})
	time.Sleep(30 * time.Millisecond)
	if got := h.dec.decisions(); len(got) != 0 || h.shown() != "" || h.p.Count() != 1 {
		t.Fatalf("after the window's Escape: decisions %q, shows %q, %d pending", got, h.shown(), h.p.Count())
	}
}

// TestInboxEndedGivesWay: a new request takes the place of an ended one
// the window shows.
func TestInboxEndedGivesWay(t *testing.T) {
	h := newTestPrompter(t)
	h.p.Show(request("a", "s"), nil)
	r := request("a", "s")
	r.State, r.Ended = wire.StateEnded, "the command ended before a decision"
	h.p.Update(r)
	h.p.Withdraw("a")
	if d := h.current(); d == nil || !d.Ended() {
		t.Fatal("the ended request is not shown")
	}
	h.p.Show(request("b", "s"), nil)
	if d := h.current(); h.shown() != "b" || d.Ended() || h.title() != WindowTitle+" (1 of 1)" {
		t.Fatalf("shows %q titled %q after a new request, want it (1 of 1)", h.shown(), h.title())
	}
}

// TestInboxEnded: a request that ended undecided (Update with
// StateEnded, then Withdraw) stays in the window, saying why, with no
// choice left; Close moves on to the next request, or hides.
func TestInboxEnded(t *testing.T) {
	for _, others := range []int{0, 1} {
		t.Run(fmt.Sprintf("%d others", others), func(t *testing.T) {
			h := newTestPrompter(t)
			h.p.Show(request("a", "s"), nil)
			if others > 0 {
				h.p.Show(request("b", "s"), nil)
			}
			h.armed(t)
			r := request("a", "s")
			r.State, r.Ended = wire.StateEnded, "the command ended: Claude Code's Bash tool stopped it after 2 minutes"
			h.p.Update(r)
			h.p.Withdraw("a")
			d := h.current()
			if d == nil || d.Request.ID != "a" || !d.Ended() {
				t.Fatalf("shows %q after the request ended, want it still, ended", h.shown())
			}
			note := h.read(func() string { return d.EndNote.Text })
			if want := "The command ended: Claude Code's Bash tool stopped it after 2 minutes. Nothing waits for this any more."; note != want {
				t.Errorf("note %q, want %q", note, want)
			}
			h.do(func() {
				for _, o := range test.LaidOutObjects(d.Content()) {
					if b, ok := o.(*widget.Button); ok && (b == d.Once || b == d.Deny) {
						t.Errorf("choice %q still laid out", b.Text)
					}
				}
			})
			h.press(fyne.KeyO)
			h.press(fyne.KeyD)
			h.tap(func(d *Dialog) *widget.Button { return d.Close })
			want := map[int]string{0: "", 1: "b"}[others]
			if got := h.shown(); got != want || h.p.Count() != others || len(h.dec.decisions()) != 0 {
				t.Fatalf("after Close: shows %q (want %q), %d pending, decisions %q", got, want, h.p.Count(), h.dec.decisions())
			}
		})
	}
}

// TestInboxFolderConfirm: in the window, a device grant of the whole
// folder asks a second time, No highlighted, and is decided only on Yes;
// No decides nothing and the request stays.
func TestInboxFolderConfirm(t *testing.T) {
	for _, answer := range []string{"No", "Yes"} {
		t.Run(answer, func(t *testing.T) {
			h := newTestPrompter(t)
			h.p.Show(request("a", "s"), nil)
			d := h.current()
			h.eventually(t, "armed", d.Armed)
			h.do(func() { d.Target.SetSelected(LabelFolder) })
			h.tap(func(d *Dialog) *widget.Button { return d.Device })
			if got := h.dec.decisions(); len(got) != 0 {
				t.Fatalf("decided %q before the second question", got)
			}
			h.do(func() {
				top := h.p.win.Canvas().Overlays().Top()
				if top == nil {
					t.Fatal("no second question")
				}
				var hit *widget.Button
				for _, o := range test.LaidOutObjects(top) {
					b, ok := o.(*widget.Button)
					if !ok {
						continue
					}
					if high := b.Importance == widget.HighImportance; high != (b.Text == LabelConfirmNo) {
						t.Errorf("%q highlighted: %v; want No alone highlighted", b.Text, high)
					}
					if b.Text == answer {
						hit = b
					}
				}
				if hit != nil {
					test.Tap(hit)
					return
				}
				t.Fatalf("no %s button in the question", answer)
			})
			if answer == "No" {
				time.Sleep(50 * time.Millisecond)
				if got := h.dec.decisions(); len(got) != 0 || h.p.Count() != 1 {
					t.Fatalf("No decided %q", got)
				}
				return
			}
			h.eventually(t, "the folder granted", func() bool { return len(h.dec.decisions()) == 1 })
			if got := h.dec.decisions()[0]; got != "a device" {
				t.Fatalf("decision %q", got)
			}
		})
	}
}
