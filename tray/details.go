package tray

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/widget"
)

// field is one line of a details view: what it is, and its value in
// full.
type field struct {
	name, value string
}

// detailsSize is the details view's size: wide enough for a long path
// on a few lines, small enough for a 1366x768 screen.
var detailsSize = fyne.NewSize(620, 460)

// openDetails shows a row in full over the settings window: every field
// as text the person can select and copy, wrapped rather than cut, and
// the row's buttons. UI goroutine only.
func (s *Settings) openDetails(fields []field, acts []action) {
	var d dialog.Dialog
	content := detailsContent(fields, acts, func() { d.Hide() })
	d = dialog.NewCustom(TitleDetails, "Close", content, s.Win)
	d.Resize(detailsSize)
	s.details = d
	d.Show()
}

// detailsContent is the details view's content: a form of the fields
// above the row's buttons; a button tapped also closes the view (done).
func detailsContent(fields []field, acts []action, done func()) fyne.CanvasObject {
	form := container.New(layout.NewFormLayout())
	for _, f := range fields {
		name := widget.NewLabelWithStyle(f.name, fyne.TextAlignTrailing, fyne.TextStyle{Bold: true})
		value := widget.NewLabel(f.value)
		value.Wrapping = fyne.TextWrapBreak
		value.Selectable = true
		form.Add(name)
		form.Add(value)
	}
	buttons := container.NewHBox()
	for _, a := range acts {
		if a.label == "" || a.tapped == nil {
			continue
		}
		tapped := a.tapped
		buttons.Add(widget.NewButton(a.label, func() { done(); tapped() }))
	}
	return container.NewBorder(nil, buttons, nil, nil, container.NewVScroll(form))
}
