package main

import (
	"context"
	"fmt"
	"log/slog"
	"os/signal"
	"syscall"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/app"
	"github.com/gen2brain/beeep"

	"pathgrant/applink"
	"pathgrant/assets"
	"pathgrant/prompt"
	"pathgrant/tray"
	"pathgrant/wire"
)

// appID identifies pathgrant to the desktop (preferences, notifications).
const appID = "dev.pathgrant.app"

// serveApp is the tray app the daemon started: it shows the requests the
// daemon sends over the link it inherited, and decides, reads and pauses
// through it. It holds nothing the daemon does not hold too: when it
// crashes or is killed the daemon starts it again, and it shows the same
// inbox. It exits when the daemon is gone or asks it to (the daemon
// started again starts its own app), and when the person quits it.
func serveApp(log *slog.Logger) error {
	link, err := applink.Inherited() // undumpable first, then linked
	if err != nil {
		return err
	}
	defer link.Close()
	fa := app.NewWithID(appID)
	fa.SetIcon(fyne.NewStaticResource("pathgrant.png", assets.Icon))
	named(fa, tray.Title)
	ui := newAppUI(fa, link, log)
	if err := startUI(ui.wire); err != nil {
		return &exitError{code: applink.ExitNoDisplay, err: err}
	}
	go ui.follow()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	go func() { <-ctx.Done(); fyne.Do(fa.Quit) }()
	if err := link.Ready(); err != nil {
		return fmt.Errorf("tell the daemon the app is ready: %w", err)
	}
	log.Info("pathgrant app ready")
	fa.Run()
	return nil
}

// exitError is an error with the exit status the daemon reads.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// named gives the app the name the desktop shows for it, the tray's
// title among others, instead of its id.
func named(fa fyne.App, name string) {
	m := fa.Metadata()
	m.Name = name
	app.SetMetadata(m)
}

// appUI is the tray app's windows and tray, wired to the daemon's link.
type appUI struct {
	app      fyne.App
	link     *applink.App
	log      *slog.Logger
	prompter *prompt.Prompter
	tray     *tray.Tray
	settings *tray.Settings
	// pending is how many requests the prompts show (OnChange), and
	// state the daemon's last state: UI goroutine only.
	pending int
	state   applink.State
}

func newAppUI(fa fyne.App, link *applink.App, log *slog.Logger) *appUI {
	beeep.AppName = "pathgrant"
	ui := &appUI{app: fa, link: link, log: log}
	notices := newRequestNotices(log, func() *prompt.Prompter { return ui.prompter })
	ui.prompter = &prompt.Prompter{App: fa, Log: log, OnChange: ui.pendingChanged, Decide: link.Decide,
		Confinement: func() string { return ui.state.Confinement },
		Notify:      notices.Notify, Announce: notices.Announce, Unannounce: notices.Unannounce}
	// a new request's window never takes the keyboard by itself (attention.go)
	ui.prompter.Reveal = (&revealer{}).reveal
	ui.prompter.FitHeight = fitHeight
	return ui
}

// wire builds the settings window and the tray. Without a tray it opens
// the settings window at once, which says how to reopen it.
func (ui *appUI) wire() {
	ui.settings = tray.NewSettings(ui.app, ui.link, ui.prompter.Open)
	t, ok := tray.New(ui.app, tray.Actions{
		ShowPending: ui.prompter.ShowAll, ShowSettings: ui.settings.Show, SetPaused: ui.setPaused, Quit: ui.confirmQuit,
	})
	if ok {
		ui.tray = t
	}
	if !ok || !tray.HostAvailable(ui.log) {
		ui.withoutTray()
	}
}

// follow shows the daemon's events until it is gone or asks the app to
// quit, then quits.
func (ui *appUI) follow() {
	if err := ui.link.Run(ui); err != nil {
		ui.log.Info("the daemon is gone: the app exits (a daemon started again starts its own)", "err", err)
	}
	fyne.Do(ui.app.Quit)
}

// Show implements applink.Handler.
func (ui *appUI) Show(r wire.Request, codes []wire.ChoiceCode) { ui.prompter.Show(r, codes) }

// Update implements applink.Handler.
func (ui *appUI) Update(r wire.Request) { ui.prompter.Update(r) }

// Withdraw implements applink.Handler.
func (ui *appUI) Withdraw(id string) { ui.prompter.Withdraw(id) }

// State implements applink.Handler: the confinement level and the pause,
// shown by the tray.
func (ui *appUI) State(st applink.State) {
	fyne.Do(func() {
		ui.state = st
		if ui.tray != nil {
			ui.tray.SetConfinement(st.Confinement)
			ui.tray.SetPausedUntil(st.PausedUntil)
		}
	})
}

// setPaused is the tray's pause item: the daemon keeps the pause and
// ends it itself.
func (ui *appUI) setPaused(paused bool) {
	d := tray.PauseFor
	if !paused {
		d = 0
	}
	go func() {
		st, err := ui.link.Pause(d)
		if err != nil {
			ui.log.Warn("pause prompts", "err", err)
			return
		}
		ui.State(st)
	}()
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
		ui.tray.SetPending(n)
	}
}
