package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"fyne.io/fyne/v2"

	"pathgrant/apiclient"
	"pathgrant/wire"
)

// raiseTimeout bounds asking the running app to raise its window: it
// answers at once, or is not there.
const raiseTimeout = 2 * time.Second

// errHeadless is a daemon that answers but has no window to raise: it
// runs headless (`pathgrant serve --headless`).
var errHeadless = errors.New("the daemon runs headless, with no window")

// raiseApp asks the app that serves on the client's socket to show view.
// It returns errHeadless for a daemon without a window and a
// *wire.UnreachableError when nothing answers.
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

// unreachable reports whether err is nothing answering on the socket.
func unreachable(err error) bool {
	var ue *wire.UnreachableError
	return errors.As(err, &ue)
}

// raiseRunningApp is a second launch of the app: when one already serves
// on socket, it shows its window (the inbox, or settings when nothing
// waits) and this launch says so in one line and is done. done is false
// when nothing answers, so this launch starts the app itself.
func raiseRunningApp(socket string, stdout io.Writer) (done bool, err error) {
	err = raiseApp(apiclient.New(socket), wire.ViewInbox)
	switch {
	case err == nil:
		fmt.Fprintf(stdout, "pathgrant is already running on %s: its window is shown\n", socket)
		return true, nil
	case unreachable(err):
		return false, nil
	case errors.Is(err, errHeadless):
		return true, fmt.Errorf("a headless pathgrant daemon already serves on %s: "+
			"approve with 'pathgrant pending' and 'pathgrant approve', or stop it to start the app", socket)
	}
	return true, fmt.Errorf("ask the pathgrant app on %s to show its window: %w", socket, err)
}

// raise is engine.Config.Raise for the app: another process asked for a
// view, shown on the UI goroutine. The inbox with nothing waiting shows
// settings instead: a person who asked for the app sees a window.
func (ui *appUI) raise(view string) error {
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
	return nil
}
