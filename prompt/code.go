package prompt

import (
	"errors"

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
	d.CopyCode = widget.NewButton("Copy", nil)
	d.CopyCommand = widget.NewButton("Copy", nil)
	for _, o := range []fyne.CanvasObject{d.Code, d.Command, d.CopyCode, d.CopyCommand} {
		o.Hide()
	}
	d.CodeEntry = widget.NewEntry()
	d.CodeEntry.SetPlaceHolder(CodePlaceholder)
	d.CodeEntry.Hide()
}

// SetCode shows the request's approval code and the terminal command that
// approves it once, each selectable and with a Copy button that puts it on
// clipboard: only the person sees this window. UI goroutine only.
func (d *Dialog) SetCode(code string, clipboard fyne.Clipboard) {
	objs := []fyne.CanvasObject{d.Code, d.Command, d.CopyCode, d.CopyCommand}
	if code == "" {
		for _, o := range objs {
			o.Hide()
		}
		return
	}
	d.Code.SetText("Approval code: " + code)
	d.Command.SetText(ApproveCommandShown(d.Request.ID, code))
	cmd := ApproveCommand(d.Request.ID, code)
	d.CopyCode.OnTapped = func() { copyText(clipboard, code) }
	d.CopyCommand.OnTapped = func() { copyText(clipboard, cmd) }
	for _, o := range objs {
		o.Show()
	}
}

func copyText(c fyne.Clipboard, s string) {
	if c != nil {
		c.SetContent(s)
	}
}

// CodePlaceholder is the hint in the code entry of an AskCode dialog.
const CodePlaceholder = "Approval code (shown in the request's prompt or the daemon's log)"

// AskCode shows the code entry: the allow buttons then send what the
// person typed, and the daemon refuses a wrong code. Deny needs none. UI
// goroutine only.
//
// Its refusal line then keeps its place, empty until a refusal, so that
// the buttons do not move under the pointer when one is shown.
func (d *Dialog) AskCode() {
	d.CodeEntry.Show()
	d.Error.Show()
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
