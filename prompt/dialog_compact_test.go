package prompt

import (
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"pathgrant/guard"
	"pathgrant/wire"
)

// TestDialogShortcutsShown: every button with an Alt shortcut shows it
// on itself, as the key the window's shortcut table gives it.
func TestDialogShortcutsShown(t *testing.T) {
	for _, op := range []guard.Op{guard.OpRead, guard.OpConnect, guard.OpWrite} {
		t.Run(string(op), func(t *testing.T) {
			req := readRequest()
			req.Op = op
			d, _, _ := newTestDialog(t, req)
			for key, pick := range shortcutKeys {
				b := pick(d)
				if b == nil {
					continue
				}
				if want := "(Alt+" + string(key) + ")"; !strings.Contains(b.Text, want) {
					t.Errorf("button %q does not show its shortcut %s", b.Text, want)
				}
			}
		})
	}
}

// TestDialogDetailsClosed: the request reads compact: who wants what, the
// agent's purpose and its clock in sight; the input, the command, the
// reason, the session and the codes behind Details, closed until opened.
func TestDialogDetailsClosed(t *testing.T) {
	req := readRequest()
	req.Purpose = "Summarise the quarterly report\nfor the README"
	d, _, _ := newTestDialog(t, req)
	d.SetCode(testCodes("K7MP"), nil)
	if len(d.Details.Items) != 1 || d.Details.Items[0].Open || d.Details.Items[0].Title != LabelDetails {
		t.Fatalf("details %+v: want one closed %q", d.Details.Items, LabelDetails)
	}
	inside := func(o fyne.CanvasObject) bool {
		for _, in := range test.LaidOutObjects(d.Details.Items[0].Detail) {
			if in == o {
				return true
			}
		}
		return false
	}
	for name, o := range map[string]fyne.CanvasObject{"code": d.Code, "command": d.Command, "copy": d.CopyCommand, "asked": d.Asked} {
		if !inside(o) {
			t.Errorf("the %s is not behind Details", name)
		}
	}
	for name, o := range map[string]fyne.CanvasObject{"purpose": d.Purpose, "clock": d.Waiting, "once": d.Once, "deny": d.Deny} {
		if inside(o) {
			t.Errorf("the %s is behind Details", name)
		}
	}
	if want := "Claude says: \u201cSummarise the quarterly report for the README\u201d"; d.Purpose.Text != want || !d.Purpose.Visible() {
		t.Errorf("purpose %q (shown %v), want %q", d.Purpose.Text, d.Purpose.Visible(), want)
	}
	plain, _, _ := newTestDialog(t, readRequest())
	if plain.Purpose.Visible() {
		t.Errorf("a purpose line %q shown with no purpose", plain.Purpose.Text)
	}
}

// TestDialogScopeChoice: several scopes are a menu, the narrowest
// selected; one scope is said in words, never a menu of one; a window
// that asks for the code offers the request's own scopes alone.
func TestDialogScopeChoice(t *testing.T) {
	t.Setenv("HOME", "/home/u")
	tests := []struct {
		name    string
		path    string
		kind    guard.GrantKind
		askCode bool // a window outside the daemon: codes approve the request's own scopes only
		menu    []string
		words   string
	}{
		{"a file", "/home/u/Downloads/a/report.csv", guard.KindFile, false, []string{LabelFile, LabelFolder, "~/Downloads"}, ""},
		{"a first-level folder", "/home/u/Downloads", guard.KindFolder, false, nil, "This folder, ~/Downloads"},
		{"a file, asking for the code", "/home/u/Downloads/a/report.csv", guard.KindFile, true, []string{LabelFile, LabelFolder}, ""},
		{"a folder below, asking for the code", "/home/u/Downloads/a", guard.KindFolder, true, nil, "This folder, ~/Downloads/a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := readRequest()
			req.Path, req.Suggested.Path, req.Suggested.Kind = tt.path, tt.path, tt.kind
			d, _, _ := newTestDialog(t, req)
			if tt.askCode {
				d.AskCode()
			}
			if tt.menu == nil {
				if d.Target.Visible() || !d.ScopeText.Visible() || d.ScopeText.Text != tt.words {
					t.Fatalf("menu shown %v, words %q (shown %v), want %q alone", d.Target.Visible(), d.ScopeText.Text, d.ScopeText.Visible(), tt.words)
				}
				return
			}
			if !d.Target.Visible() || d.ScopeText.Visible() || strings.Join(d.Target.Options, "|") != strings.Join(tt.menu, "|") ||
				d.Target.Selected != tt.menu[0] {
				t.Fatalf("menu %q at %q (shown %v), want %q at the first", d.Target.Options, d.Target.Selected, d.Target.Visible(), tt.menu)
			}
		})
	}
}

// TestDialogFitsSmallScreen: at the window's largest height, which a
// 1366x768 screen holds with its title bar and a panel, every choice is
// inside the window, for the tallest request (a long path and name, the
// unconfined banner, the code entry and a refusal).
func TestDialogFitsSmallScreen(t *testing.T) {
	const screen, panel, titleBar = 768, 30, 32
	if MaxHeight+panel+titleBar > screen {
		t.Fatalf("MaxHeight %d does not fit a %d px screen", MaxHeight, screen)
	}
	a := test.NewTempApp(t)
	a.Settings().SetTheme(theme.DefaultTheme()) // the app's sizes, not the test theme's
	req := readRequest()
	req.Path = "/home/u/Downloads/" + strings.Repeat("quarterly-report-", 6) + "final.csv"
	req.Purpose = strings.Repeat("a long stated purpose ", 12)
	req.Held = "python3"
	d := NewDialog(req, func(wire.Decision) {})
	d.SetConfinement(string(wire.LevelNone))
	d.AskCode()
	d.Refused(errString("wrong code"))
	w := test.NewTempWindow(t, d.Content())
	size := fyne.NewSize(WindowWidth, min(d.Height(), MaxHeight))
	w.Resize(size)
	if d.Height() <= MaxHeight {
		t.Errorf("the request is %.0f px tall: it does not need the scroll this test is about", d.Height())
	}
	for _, b := range []*widget.Button{d.Once, d.Session, d.Device, d.Deny, d.DenySession, d.DenyDevice} {
		pos := fyne.CurrentApp().Driver().AbsolutePositionForObject(b)
		if pos.Y < 0 || pos.Y+b.Size().Height > w.Canvas().Size().Height || pos.X+b.Size().Width > w.Canvas().Size().Width {
			t.Errorf("%q at %v size %v is outside the %v window", b.Text, pos, b.Size(), w.Canvas().Size())
		}
	}
	if mw := d.Content().MinSize().Width; mw > WindowWidth {
		t.Errorf("the dialog needs %.0f px, the window is %d", mw, WindowWidth)
	}
}

type errString string

func (e errString) Error() string { return string(e) }

// TestDialogEscapeDecidesNothing: Escape calls Dismiss and decides
// nothing; a lone Return or letter decides nothing either.
func TestDialogEscapeDecidesNothing(t *testing.T) {
	d, rec, _ := newTestDialog(t, readRequest())
	dismissed := 0
	d.Dismiss = func() { dismissed++ }
	d.Arm()
	for _, k := range []fyne.KeyName{fyne.KeyEscape, fyne.KeyReturn, fyne.KeyEnter, fyne.KeySpace, fyne.KeyO} {
		d.TypedKey(&fyne.KeyEvent{Name: k})
	}
	trap := newKeyTrap(d)
	for _, r := range "osad\n " {
		trap.TypedRune(r)
	}
	trap.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	time.Sleep(10 * time.Millisecond)
	if got := rec.decisions(); len(got) != 0 || dismissed != 1 || d.Decided() {
		t.Fatalf("decisions %+v, dismissed %d times; want none and once", got, dismissed)
	}
}
