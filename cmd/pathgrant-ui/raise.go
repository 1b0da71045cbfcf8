package main

import (
	"context"
	"errors"
	"net/http"
	"time"

	"fyne.io/fyne/v2"

	"pathgrant/apiclient"
	"pathgrant/wire"
)

// raiseTimeout bounds asking the daemon to show the app: it answers at
// once, or is not there.
const raiseTimeout = 2 * time.Second

// errHeadless is a daemon that answers but has no window to raise: it
// runs headless (`pathgrant serve --headless`).
var errHeadless = errors.New("the daemon runs headless, with no window")

// raiseApp asks the daemon on the client's socket to show view in its
// app, which it starts when none runs. It returns errHeadless for a
// daemon without a window and a *wire.UnreachableError when nothing
// answers.
func raiseApp(c *apiclient.Client, view string) error {
	ctx, cancel := context.WithTimeout(context.Background(), raiseTimeout)
	defer cancel()
	err := c.Raise(ctx, view)
	var de *wire.DaemonError
	if errors.As(err, &de) && de.Status == http.StatusNotFound {
		return errHeadless
	}
	return err
}

// Raise implements applink.Handler: another process asked the daemon for
// a view, shown on the UI goroutine. The inbox with nothing waiting shows
// settings instead: a person who asked for the app sees a window.
func (ui *appUI) Raise(view string) {
	fyne.Do(func() {
		if ui.settings == nil { // not wired yet
			return
		}
		if view == wire.ViewInbox && ui.pending > 0 {
			ui.prompter.ShowAll()
			return
		}
		ui.settings.Show()
	})
}
