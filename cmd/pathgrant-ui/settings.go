package main

import (
	"context"
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
)

// showSettings opens the grants, audit and pending window of the daemon
// that answers on the socket, for desktops with no tray icon to click.
func showSettings(socket string, log *slog.Logger) error {
	socket = appdirs.SocketOr(socket, os.Getenv)
	client := apiclient.New(socket)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := client.Health(ctx); err != nil {
		return err
	}
	fa := app.NewWithID(appID + ".settings")
	fa.SetIcon(fyne.NewStaticResource("pathgrant.png", assets.Icon))
	backend := tray.Remote{Client: client}
	p := &prompt.Prompter{App: fa, Log: log, Decide: backend.Decide, AskCode: true}
	s := tray.NewSettings(fa, backend, p.Open)
	s.Win.SetCloseIntercept(fa.Quit)
	s.Show()
	fa.Run()
	return nil
}
