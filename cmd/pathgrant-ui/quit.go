package main

import (
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
)

// QuitTitle is the title of the window that asks before the app quits.
const QuitTitle = "Quit the pathgrant window?"

// Labels of the quit window's buttons.
const (
	LabelQuitWindow = "Quit the window"
	LabelKeep       = "Keep it"
)

// quitText says what quitting stops and what it does not: the daemon
// keeps checking, and what waits keeps waiting, reachable another way.
func quitText(pending int) string {
	waiting := "Nothing waits for you now."
	switch {
	case pending == 1:
		waiting = "1 request waits for you: it keeps waiting."
	case pending > 1:
		waiting = fmt.Sprintf("%d requests wait for you: they keep waiting.", pending)
	}
	return "This closes the tray icon and the approval window only.\n\n" +
		"pathgrant itself keeps running: every agent call is still checked, and nothing is allowed " +
		"that was not. " + waiting + " While the window is closed, requests are listed by " +
		"'pathgrant pending' and approved with 'pathgrant approve', with the code on the daemon's " +
		"log line.\n\n'pathgrant app' opens the window again. To stop pathgrant itself: " +
		"'systemctl --user stop pathgrant.socket pathgrant.service' (or stop 'pathgrant serve')."
}

// confirmQuit asks before quitting. Quitting tells the daemon first, so
// it does not take the exit for a crash and start the app again.
func (ui *appUI) confirmQuit() {
	w := ui.app.NewWindow(QuitTitle)
	text := widget.NewLabel(quitText(ui.pending))
	text.Wrapping = fyne.TextWrapWord
	keep := widget.NewButton(LabelKeep, w.Close)
	quit := widget.NewButton(LabelQuitWindow, func() {
		if err := ui.link.Quit(); err != nil {
			ui.log.Warn("tell the daemon the app quits", "err", err)
		}
		ui.app.Quit()
	})
	keep.Importance = widget.HighImportance
	w.SetContent(container.NewBorder(nil, container.NewHBox(quit, keep), nil, nil, text))
	w.Resize(fyne.NewSize(460, 260))
	w.CenterOnScreen()
	w.Show()
}
