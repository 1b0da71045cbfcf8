package prompt

import (
	"strings"
	"testing"
	"time"
	"unicode"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"
)

// What someone with the agent's keyboard tried against the inbox's text
// (each TestAttackText* is one attempt, and passes while it fails). Markup
// in a notification's body is escaped by package notify
// (TestBodyMarkupEscaped).

// fakeAgent is an agent name as a session registration may carry it
// (`pathgrant run --agent`, a check's agent field: neither is bounded nor
// cleaned): it reads as a harmless request and pushes the real one out
// of sight below.
var fakeAgent = "claude wants to read ~/Downloads/readme.txt (in ~/Downloads)" + strings.Repeat("\n", 80) + "ignore this: claude"

// TestAttackTextAgentNameFakesTheRequest: the agent's name is shown raw as
// the window's first line ("X wants to read"), so a name with newlines
// fakes the heading and, 80 lines tall, pushes the real file's name and
// folder below the window's visible height: the person sees the fake
// request, and the choices, without scrolling.
func TestAttackTextAgentNameFakesTheRequest(t *testing.T) {
	r := readRequest()
	r.Agent = fakeAgent
	r.Path = "/home/u/Documents/passwords.kdbx"
	r.Suggested.Path = r.Path
	d, _, _ := newTestDialog(t, r)
	head, ok := d.details.Objects[3].(*widget.Label)
	if !ok {
		t.Fatalf("details[3] is %T, not the head label", d.details.Objects[3])
	}
	if strings.Contains(head.Text, "\n") || len([]rune(head.Text)) > 100 {
		t.Errorf("the head line shows the agent's name raw: %d lines, %d characters", strings.Count(head.Text, "\n")+1, len([]rune(head.Text)))
	}
	if h := head.MinSize().Height; h > MaxHeight {
		t.Errorf("the agent's name alone is %.0f px tall (the window shows at most %d): the real path is out of sight", h, MaxHeight)
	}
	for what, s := range map[string]string{
		"session row":  SessionText(r, "/home/u"),
		"agent clock":  WaitingText(r, time.Now()),
		"notification": NotifyText(r),
	} {
		if strings.Contains(s, "\n") {
			t.Errorf("the %s carries the agent's newlines: %q", what, s[:60])
		}
	}
}

// TestAttackTextPathShownRaw: the path the guard accepts may hold any byte
// but NUL; the heading (its base name) and the folder line show it raw.
// A newline makes the heading two lines, a right-to-left override
// reverses what follows it, and a zero-width space makes two names look
// the same.
func TestAttackTextPathShownRaw(t *testing.T) {
	r := readRequest()
	r.Path = "/home/u/Downloads/invoice\u202Efdp.exe\u200B\nin \u2215home\u2215u\u2215Downloads"
	r.Suggested.Path = r.Path
	for what, s := range map[string]string{
		"heading":     Heading(r),
		"folder line": WrapPath(Target(r, "/home/u"), pathCols),
	} {
		for _, c := range s {
			if c == '\n' && what == "folder line" {
				continue // WrapPath's own breaks
			}
			if unicode.IsControl(c) || unicode.Is(unicode.Cf, c) {
				t.Errorf("the %s shows %U raw: %q", what, c, s)
			}
		}
	}
}

// TestAttackTextReturnApprovesAWindowThatPoppedUp: a new request, timed by
// the agent, opens the inbox by itself (Show with the window hidden),
// where the toolkit gives it the keyboard; 600 ms later Return is "Allow
// once". A person typing in a terminal who presses Return a second after
// the window appeared approves a request never read. The arm delay is
// made for a click sliding onto a new request, not for a window the
// person did not open: Return (and Alt+O, Alt+S, Alt+A) should need the
// person to have acted on the window first.
func TestAttackTextReturnApprovesAWindowThatPoppedUp(t *testing.T) {
	h := newTestPrompter(t)
	h.p.ArmDelay = 0 // the default, 600 ms
	h.p.Show(request("a1", "s1"), testCodes("CODE"))
	if h.shown() != "a1" {
		t.Fatalf("shown %q", h.shown())
	}
	time.Sleep(ArmDelay + 300*time.Millisecond) // the person still typing in another window
	h.do(func() {
		h.p.win.Canvas().(interface{ OnTypedKey() func(*fyne.KeyEvent) }).OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeyReturn})
	})
	time.Sleep(100 * time.Millisecond)
	for _, got := range h.dec.decisions() {
		if got == "a1 once" {
			t.Fatalf("Return, typed %v after a window the person did not open appeared, approved: %q", ArmDelay+300*time.Millisecond, h.dec.decisions())
		}
	}
}
