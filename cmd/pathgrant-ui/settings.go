package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/app"

	"pathgrant/apiclient"
	"pathgrant/appdirs"
	"pathgrant/assets"
	"pathgrant/prompt"
	"pathgrant/tray"
	"pathgrant/wire"
)

// showSettings shows the settings of the daemon that answers on the
// socket. The running app shows its own window, where approving needs no
// code, and this process says so in one line; it raises the inbox too
// when requests wait. Only a headless daemon, which has no window, gets
// one from this process, whose prompts ask for the approval code.
func showSettings(socket string, log *slog.Logger, stdout io.Writer) error {
	socket = appdirs.SocketOr(socket, os.Getenv)
	client := apiclient.New(socket)
	err := raiseApp(client, wire.ViewSettings)
	switch {
	case err == nil:
		return raisedSettings(client, stdout)
	case errors.Is(err, errHeadless):
		return remoteSettings(client, socket, log)
	}
	return err
}

// raisedSettings follows a raised settings window with the inbox when
// requests wait, and says what the app shows.
func raisedSettings(client *apiclient.Client, stdout io.Writer) error {
	ctx, cancel := context.WithTimeout(context.Background(), raiseTimeout)
	defer cancel()
	pending, err := client.Pending(ctx)
	if err == nil && len(pending) > 0 {
		if err := raiseApp(client, wire.ViewInbox); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "pathgrant: the running app shows its settings window and %s\n", waiting(len(pending)))
		return nil
	}
	fmt.Fprintln(stdout, "pathgrant: the running app shows its settings window")
	return nil
}

func waiting(n int) string {
	if n == 1 {
		return "the request waiting"
	}
	return fmt.Sprintf("the %d requests waiting", n)
}

// remoteSettings opens the grants, audit and pending window of a headless
// daemon in this process, with a prompt for each request that waits, until
// the window is closed.
// A socket other than the default is named in the window's title: the
// person types approval codes there, and should see whose daemon asks.
func remoteSettings(client *apiclient.Client, socket string, log *slog.Logger) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := client.Health(ctx); err != nil {
		return err
	}
	fa := app.NewWithID(appID + ".settings")
	fa.SetIcon(fyne.NewStaticResource("pathgrant.png", assets.Icon))
	named(fa, tray.Title)
	backend := tray.Remote{Client: client}
	p := &prompt.Prompter{App: fa, Log: log, Decide: backend.Decide, AskCode: true}
	s := tray.NewSettings(fa, backend, p.Open)
	s.Win.SetCloseIntercept(fa.Quit)
	if socket != appdirs.Socket(os.Getenv) {
		s.Win.SetTitle(tray.SettingsTitle + " (daemon on " + socket + ")")
	}
	s.Show()
	if pending, err := backend.Pending(); err == nil {
		for _, r := range pending {
			p.Open(r)
		}
	}
	fa.Run()
	return nil
}
