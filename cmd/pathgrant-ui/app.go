package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/app"
	"github.com/gen2brain/beeep"

	"pathgrant/appdirs"
	"pathgrant/assets"
	"pathgrant/daemon"
	"pathgrant/engine"
	"pathgrant/grants"
	"pathgrant/ipc"
	"pathgrant/prompt"
	"pathgrant/tray"
	"pathgrant/wire"
)

// appID identifies pathgrant to the desktop (preferences, notifications).
const appID = "dev.pathgrant.app"

// serveApp owns the socket and the store while the Fyne app runs, and
// shuts both down when it quits (tray Quit, SIGINT or SIGTERM). When the
// app already runs on the socket it asks it to show its window and is
// done. Without a usable display it hands over to the headless daemon
// instead of failing: before taking anything when no display is named,
// and after giving the socket and store back when the toolkit cannot
// start.
func serveApp(socket, store string, log *slog.Logger, stdout, stderr io.Writer) error {
	if done, err := raiseRunningApp(appdirs.SocketOr(socket, os.Getenv), stdout); done {
		return err
	}
	if why := appdirs.DisplayMissing(os.Getenv); why != "" {
		return serveHeadless(socket, store, fmt.Errorf("no display (%s)", why), stderr)
	}
	d, err := daemon.Start(socket, store, log)
	if err != nil {
		return err
	}
	fa := app.NewWithID(appID)
	fa.SetIcon(fyne.NewStaticResource("pathgrant.png", assets.Icon))
	named(fa, tray.Title)
	ui := newAppUI(fa, log)
	cfg := d.Config(log, ui.prompter)
	cfg.Raise = ui.raise // `pathgrant settings`, a second launch
	srv := ipc.New(cfg)
	if err := startUI(func() { ui.wire(srv.Engine(), d.Store) }); err != nil {
		if rerr := release(d); rerr != nil {
			return errors.Join(err, rerr)
		}
		return serveHeadless(socket, store, err, stderr)
	}
	serveErr := d.Serve(srv)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	go func() { <-ctx.Done(); fyne.Do(fa.Quit) }()
	log.Info("pathgrant ready", "socket", d.Socket, "store", d.StorePath)
	fa.Run()
	stop()
	return d.Stop(ctx, srv, serveErr, log)
}

// named gives the app the name the desktop shows for it, the tray's
// title among others, instead of its id.
func named(fa fyne.App, name string) {
	m := fa.Metadata()
	m.Name = name
	app.SetMetadata(m)
}

// release gives back a daemon's socket and store that never served, so
// the headless daemon can take them.
func release(d *daemon.Daemon) error {
	lerr := d.Listener.Close() // removes the socket file
	if err := d.Store.Close(); err != nil {
		return errors.Join(lerr, fmt.Errorf("close the store: %w", err))
	}
	return lerr
}

// appUI is the tray app's windows and tray, wired to one daemon.
type appUI struct {
	app      fyne.App
	log      *slog.Logger
	prompter *prompt.Prompter
	tray     *tray.Tray
	settings *tray.Settings
	// pending is how many requests the prompts show (OnChange); UI
	// goroutine only.
	pending int
	// confinement is the daemon's confinement level (ipc.Server.Confinement).
	confinement func() string
}

func newAppUI(fa fyne.App, log *slog.Logger) *appUI {
	beeep.AppName = "pathgrant"
	ui := &appUI{app: fa, log: log}
	ui.prompter = &prompt.Prompter{App: fa, Log: log, OnChange: ui.pendingChanged,
		Notify: requestNotifier(log, func() *prompt.Prompter { return ui.prompter })}
	return ui
}

// wire connects the prompts and the tray to the daemon. Without a tray
// it opens the settings window at once, which says how to reopen it.
func (ui *appUI) wire(srv *engine.Engine, store *grants.Store) {
	ui.prompter.Decide = func(id string, d wire.Decision) error { _, err := srv.Decide(id, d); return err }
	level := func() string { return string(srv.Confinement()) }
	ui.prompter.Confinement = level
	ui.confinement = level
	ui.settings = tray.NewSettings(ui.app, tray.Local{Engine: srv, Store: store}, ui.prompter.Open)
	t, ok := tray.New(ui.app, tray.Actions{
		ShowPending: ui.prompter.ShowAll, ShowSettings: ui.settings.Show, SetPaused: srv.SetPaused, Quit: ui.app.Quit,
	})
	if ok {
		ui.tray = t
		t.SetConfinement(level())
	}
	if !ok || !tray.HostAvailable(ui.log) {
		ui.withoutTray()
	}
}

// withoutTray opens the settings window with NoTrayNotice, and says the
// same once as a notification and in the log.
func (ui *appUI) withoutTray() {
	ui.log.Warn("no system tray host: the app runs without an icon; open its windows with 'pathgrant settings'")
	ui.settings.SetNotice(tray.NoTrayNotice)
	ui.settings.Show()
	go func() {
		_ = notify("pathgrant is running", "No system tray here: open the grants and audit window with 'pathgrant settings'.")
	}()
}

func (ui *appUI) pendingChanged(n int) {
	ui.pending = n
	if ui.tray != nil {
		ui.tray.SetConfinement(ui.confinement()) // the device policy may have changed
		ui.tray.SetPending(n)
	}
}
