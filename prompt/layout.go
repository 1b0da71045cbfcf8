package prompt

import (
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"pathgrant/guard"
	"pathgrant/wire"
)

// headCols is how many characters of the headline (a file's name in
// heading type) a line of the window holds: the name is broken at its
// separators by WrapName, never by the toolkit mid-word.
const headCols = 34

// headLines bounds the headline: the name is the agent's to choose (a
// request's path need not exist), and a name padded with spaces or just
// long must not push the folder line below the window's fold.
const headLines = 3

// Headline is r's name as the window's headline: broken by WrapName,
// with no blank line (a run of spaces at a break is one), at most
// headLines lines, the last ending in "…" when the name goes on.
func Headline(r wire.Request) string {
	var lines []string
	for _, line := range strings.Split(WrapName(Heading(r), headCols), "\n") {
		if strings.TrimSpace(line) != "" {
			lines = append(lines, line)
		}
	}
	if len(lines) <= headLines {
		return strings.Join(lines, "\n")
	}
	last := []rune(strings.TrimRight(lines[headLines-1], " "))
	if len(last) >= headCols {
		last = last[:headCols-1]
	}
	lines[headLines-1] = string(last) + "…"
	return strings.Join(lines[:headLines], "\n")
}

// layout puts the request first, as a person reads it: who wants what
// (the file's name large, its folder under it), how long the agent
// waits, its own purpose; then, closed, the details; and at the
// bottom edge the scope and the choices, allow above deny.
func (d *Dialog) layout() fyne.CanvasObject {
	r := d.Request
	nav := container.NewBorder(nil, nil, d.Position, container.NewHBox(d.Prev, d.Next, d.DenyAll))
	head := widget.NewLabel(fmt.Sprintf("%s wants to %s", AgentName(r.Agent), Verb(r)))
	name := widget.NewRichText(&widget.TextSegment{Style: widget.RichTextStyleHeading, Text: Headline(r)})
	name.Wrapping = fyne.TextWrapOff
	where := monoLabel(WrapPath(Target(r, d.home), pathCols))
	d.Details = widget.NewAccordion(widget.NewAccordionItem(LabelDetails,
		container.NewVBox(d.form(), d.codeRows())))
	d.details = container.NewVBox(d.Unconfined, nav, widget.NewSeparator(), head, name, where, d.Waiting, d.Purpose,
		d.Details)
	// The scope, the code entry and a refusal's line sit with the
	// choices, never scrolled out of sight: a missing or wrong code is
	// always seen.
	d.choices = container.NewVBox(widget.NewSeparator(), d.scopeRow(), d.CodeEntry, d.Error, d.buttons())
	// The choices sit at the bottom edge: where each button is depends on
	// the window's size alone, not on how many lines the request took. The
	// details scroll when they are taller than the screen allows.
	return container.NewBorder(nil, d.choices, nil, nil, container.NewVScroll(d.details))
}

// Height is the window's content height with nothing scrolled away: the
// two parts, the gap between them and the window's padding above and
// below.
func (d *Dialog) Height() float32 {
	return d.details.MinSize().Height + d.choices.MinSize().Height + 3*theme.Padding()
}

// scopeRow is what an allow grants: a menu of scopes, or the one scope
// in words; nothing for a connection, whose grant names its destination.
func (d *Dialog) scopeRow() fyne.CanvasObject {
	row := container.NewBorder(nil, nil, widget.NewLabel(LabelGrant+":"), nil, container.NewStack(d.targetMenu, d.ScopeText))
	if d.Request.Op == guard.OpConnect {
		row.Hide()
	}
	return row
}

// form is the request's details: what the tool was given, why pathgrant
// asks, whose session it is.
func (d *Dialog) form() *widget.Form {
	r := d.Request
	form := widget.NewForm()
	if t := PausedText(r); t != "" {
		form.Append("Paused", wrapLabel(WrapText(t, valueCols)))
	}
	if r.Input != "" {
		form.Append("Input", monoLabel(WrapText(r.Input, valueCols)))
	}
	if r.Command != "" {
		form.Append("Command", monoLabel(WrapText(shorten(r.Command, 300), valueCols)))
	}
	if r.Requested != "" && r.Requested != r.Path && r.Requested != Tilde(r.Path, d.home) {
		form.Append("Requested as", monoLabel(WrapPath(r.Requested, valueCols)))
	}
	form.Append(LabelReason, wrapLabel(orDash(ReasonText(r))))
	form.Append(LabelSessionOf, wrapLabel(SessionText(r, d.home)))
	if ws := otherRoots(r.Workspace, r.Cwd, d.home); ws != "" {
		form.Append(LabelWorkspace, monoLabel(ws))
	}
	if r.Workflow != "" {
		form.Append("Workflow", widget.NewLabel(r.Workflow))
	}
	form.Append("Tool", container.NewHBox(widget.NewLabel(orDash(r.Tool)), d.Asked))
	return form
}

// buttons are the choices: each allow button beside how long it lasts;
// then, apart, the denials.
func (d *Dialog) buttons() fyne.CanvasObject {
	box := container.NewVBox(d.Once, container.NewBorder(nil, nil, nil, durationBox(d.sessionForMenu), d.Session))
	if d.Device != nil {
		box.Add(container.NewBorder(nil, nil, nil, durationBox(d.deviceForMenu), d.Device))
	}
	box.Add(widget.NewSeparator())
	box.Add(container.NewGridWithColumns(2, d.Deny, d.DenySession))
	if d.DenyDevice != nil {
		box.Add(d.DenyDevice)
	}
	return box
}

// durationWidth fits the longest duration's words beside its button.
const durationWidth = 236

// durationBox gives a duration menu room for its words: a menu cut to
// "until the se…" would not say how long the grant lasts.
func durationBox(s fyne.CanvasObject) fyne.CanvasObject {
	return container.NewGridWrap(fyne.NewSize(durationWidth, s.MinSize().Height), s)
}

// codeRows are the approval codes and the terminal command, then their
// Copy buttons on a row of their own: beside them, the codes' widest line
// would run under the details' scroll bar.
func (d *Dialog) codeRows() fyne.CanvasObject {
	return container.NewVBox(d.Code, d.Command, container.NewHBox(d.CopyCode, d.CopyCommand))
}

// Shortcut keys (with Alt) of the window's buttons: an allow button's
// shortcut does nothing while the button is disabled (before arming).
var shortcutKeys = map[fyne.KeyName]func(*Dialog) *widget.Button{
	fyne.KeyO: func(d *Dialog) *widget.Button { return d.Once },
	fyne.KeyS: func(d *Dialog) *widget.Button { return d.Session },
	fyne.KeyA: func(d *Dialog) *widget.Button { return d.Device },
	fyne.KeyD: func(d *Dialog) *widget.Button { return d.Deny },
	fyne.KeyR: func(d *Dialog) *widget.Button { return d.DenySession },
	fyne.KeyE: func(d *Dialog) *widget.Button { return d.DenyDevice },
	fyne.KeyN: func(d *Dialog) *widget.Button { return d.Next },
	fyne.KeyP: func(d *Dialog) *widget.Button { return d.Prev },
	// Alt+C copies the terminal command (which carries no code: it asks
	// for one): it approves nothing by itself
	fyne.KeyC: func(d *Dialog) *widget.Button { return d.CopyCommand },
}

// Press taps the button whose shortcut is Alt+key, when it is there,
// shown and enabled, and for an allow button once the keys are live
// (KeysLive); it reports whether one was tapped. UI goroutine only.
func (d *Dialog) Press(key fyne.KeyName) bool {
	pick, ok := shortcutKeys[key]
	if !ok {
		return false
	}
	b := pick(d)
	if b == nil || b.Disabled() || !b.Visible() || b.OnTapped == nil {
		return false
	}
	if d.waitsForArming(b) && !d.KeysLive() {
		return false // the window has not had the keyboard for KeyDelay yet (keys.go)
	}
	b.OnTapped()
	return true
}

// otherRoots lists the workspace roots, one a line, unless the workspace
// is just the working directory, which the dialog already shows.
func otherRoots(roots []string, cwd, home string) string {
	if len(roots) == 0 || (len(roots) == 1 && roots[0] == cwd) {
		return ""
	}
	shown := make([]string, len(roots))
	for i, r := range roots {
		shown[i] = WrapPath(Tilde(r, home), valueCols)
	}
	return strings.Join(shown, "\n")
}

func wrapLabel(s string) *widget.Label {
	l := widget.NewLabel(s)
	l.Wrapping = fyne.TextWrapWord
	return l
}

// monoLabel shows text whose lines the dialog broke itself (WrapPath):
// the toolkit never breaks it again mid-word.
func monoLabel(s string) *widget.Label {
	l := widget.NewLabelWithStyle(s, fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
	l.Wrapping = fyne.TextWrapOff
	return l
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

// waitsForArming reports whether b is an allow button or a durable
// denial (armedButtons).
func (d *Dialog) waitsForArming(b *widget.Button) bool {
	for _, a := range d.armedButtons() {
		if a == b {
			return true
		}
	}
	return false
}
