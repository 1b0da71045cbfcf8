package prompt

import (
	"errors"
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"

	"pathgrant/wire"
)

// newCode makes the code and command rows, hidden until SetCode.
func (d *Dialog) newCode() {
	mono := fyne.TextStyle{Monospace: true}
	d.Code = widget.NewLabelWithStyle("", fyne.TextAlignLeading, mono)
	d.Code.Selectable = true
	d.Command = widget.NewLabelWithStyle("", fyne.TextAlignLeading, mono)
	d.Command.Selectable = true
	d.CopyCode = widget.NewButton(LabelCopyCode, nil)
	d.CopyCommand = widget.NewButton(LabelCopy, nil)
	for _, o := range []fyne.CanvasObject{d.Code, d.Command, d.CopyCode, d.CopyCommand} {
		o.Hide()
	}
	d.CodeEntry = newCodeField(d)
	d.CodeEntry.SetPlaceHolder(CodePlaceholder)
	d.CodeEntry.Hide()
}

// SetCode keeps the request's approval codes, one per choice, and shows
// for a terminal the code of each allow button's choice as the target and
// the duration menus now name it (kept current as they change), and the
// command that approves once. The command carries no code: `pathgrant
// approve` asks for it, so it is never on a command line. Copy puts the
// command, or the once code it asks for, on the clipboard: only the
// person sees this window. UI goroutine only.
func (d *Dialog) SetCode(codes []wire.ChoiceCode, clipboard fyne.Clipboard) {
	d.codes, d.clipboard = codes, clipboard
	refresh := func(string) { d.showCodes() }
	d.Target.OnChanged = refresh
	d.SessionFor.OnChanged = refresh
	if d.DeviceFor != nil {
		d.DeviceFor.OnChanged = refresh
	}
	d.showCodes()
}

// showCodes fills the code and command rows from the codes and the
// choices now selected, or hides them when there are no codes.
func (d *Dialog) showCodes() {
	objs := []fyne.CanvasObject{d.Code, d.Command, d.CopyCode, d.CopyCommand}
	if len(d.codes) == 0 {
		for _, o := range objs {
			o.Hide()
		}
		return
	}
	once := wire.Choice{Scope: "once", Kind: d.kind()}
	codes := d.codes
	if d.scope().Path != "" {
		codes = nil // a folder above the request's own has no code: only the window grants it
	}
	d.Code.SetText(CodesText(codes, d.selectedChoices()))
	cmd := ApproveCommand(d.Request.ID, once)
	d.Command.SetText(ApproveCommandShown(d.Request.ID, once))
	onceCode := wire.CodeFor(codes, once)
	d.CopyCode.OnTapped = func() { copyText(d.clipboard, onceCode) }
	d.CopyCommand.OnTapped = func() { copyText(d.clipboard, cmd) }
	for _, o := range objs {
		o.Show()
	}
}

// selectedChoices are the choices the allow buttons would make now: once,
// session and device (for a read), with the target and each one's
// duration as selected.
func (d *Dialog) selectedChoices() []wire.Choice {
	kind := d.kind()
	cs := []wire.Choice{{Scope: "once", Kind: kind},
		{Scope: "session", Kind: kind, For: durationFor(SessionDurations, d.SessionFor.Selected)}}
	if d.Device != nil {
		cs = append(cs, wire.Choice{Scope: "device", Kind: kind, For: durationFor(DeviceDurations, d.DeviceFor.Selected)})
	}
	return cs
}

// CodesText is the code rows' text: a heading, then one line per choice,
// its flags for `pathgrant approve` and its code ("not offered" when the
// request has none for it, as for a folder that cannot be granted); the
// longest line fits the window beside its Copy button.
func CodesText(codes []wire.ChoiceCode, choices []wire.Choice) string {
	lines := []string{"Approval codes, one per choice:"}
	for _, c := range choices {
		code := wire.CodeFor(codes, c)
		if code == "" {
			code = "not offered"
		}
		lines = append(lines, fmt.Sprintf("  %-34s %s", c.Flags(), code))
	}
	return strings.Join(lines, "\n")
}

// ApproveCommand is the terminal command that asks for choice c of
// request id: the flags alone, never a code (it asks for that), so it is
// safe on a command line and in a shell's history.
func ApproveCommand(id string, c wire.Choice) string {
	return "pathgrant approve " + id + " " + c.Flags()
}

// ApproveCommandShown is ApproveCommand as the window shows it: cut into
// two lines with a shell line continuation after the id, so that a full
// id and the flags fit the window's width, and a selection pasted into a
// terminal still runs as one command.
func ApproveCommandShown(id string, c wire.Choice) string {
	return "pathgrant approve " + id + " \\\n  " + c.Flags()
}

func copyText(c fyne.Clipboard, s string) {
	if c != nil {
		c.SetContent(s)
	}
}

// CodePlaceholder is the hint in the code entry of an AskCode dialog.
const CodePlaceholder = "Approval code of your choice (shown beside it in the request's prompt or the daemon's log)"

// AskCode shows the code entry: the allow buttons then send what the
// person typed, and the daemon refuses a wrong code, or one shown for
// another choice. Deny needs none. UI goroutine only.
//
// Its refusal line then keeps its place, empty until a refusal, so that
// the buttons do not move under the pointer when one is shown. The scope
// menu keeps the request's own scopes: a code approves its own choice,
// and the daemon refuses it for a folder above.
func (d *Dialog) AskCode() {
	d.CodeEntry.Show()
	d.Error.Show()
	own := d.scopes[:0:0]
	for _, o := range d.scopes {
		if o.Path == "" {
			own = append(own, o)
		}
	}
	d.setScopes(own)
}

// Refused shows why the daemon refused the last choice (a missing or
// wrong code), one line, and lets the person choose again: the request
// is still pending. UI goroutine only.
func (d *Dialog) Refused(err error) {
	d.Error.SetText(RefusalText(err))
	d.Error.Show()
	d.decided.Store(false)
}

// RefusalText is the window's one line for a refused decision: the
// daemon's own words when it refused, else the error's first line.
func RefusalText(err error) string {
	var de *wire.DaemonError
	if errors.As(err, &de) && de.Msg != "" {
		return firstLine(de.Msg)
	}
	return firstLine(err.Error())
}

// CodeField is the code entry. It tells the dialog when it has the
// keyboard, as the key trap does: a person who typed the code may then
// choose with an Alt shortcut.
type CodeField struct {
	widget.Entry
	d *Dialog
}

func newCodeField(d *Dialog) *CodeField {
	f := &CodeField{d: d}
	f.ExtendBaseWidget(f)
	return f
}

// FocusGained implements fyne.Focusable.
func (f *CodeField) FocusGained() {
	f.Entry.FocusGained()
	f.d.FocusGained()
}

// FocusLost implements fyne.Focusable.
func (f *CodeField) FocusLost() {
	f.Entry.FocusLost()
	f.d.FocusLost()
}
