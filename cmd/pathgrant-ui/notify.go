package main

import (
	"log/slog"
	"sync"

	"fyne.io/fyne/v2"
	"github.com/gen2brain/beeep"

	"pathgrant/assets"
	notifications "pathgrant/notify"
	"pathgrant/prompt"
)

// notify posts a plain desktop notification with the app icon: a notice
// about no request, which carries no action.
func notify(title, message string) error {
	return beeep.Notify(title, message, assets.Icon)
}

// requestNotices are the inbox's notifications: one per request, naming
// the agent and its project, with the actions Open and Deny where the
// notification server supports them (never Allow: approving stays in the
// window or with the code); taken back when the request leaves the
// inbox; a burst of one agent in one project one notification that
// counts them. The session bus is reached at the first notification, off
// the UI goroutine; inbox gives the Prompter the actions go to.
type requestNotices struct {
	log   *slog.Logger
	inbox func() *prompt.Prompter
	once  sync.Once
	n     *notifications.Notifier
}

func newRequestNotices(log *slog.Logger, inbox func() *prompt.Prompter) *requestNotices {
	return &requestNotices{log: log, inbox: inbox}
}

func (rn *requestNotices) notifier() *notifications.Notifier {
	rn.once.Do(func() {
		rn.n = notifications.New(notifications.Options{AppName: "pathgrant", Icon: assets.Icon, Log: rn.log,
			OnAction: func(id, action string) { notificationAction(rn.inbox(), id, action, rn.log) }})
	})
	return rn.n
}

// Notify is the Prompter's Notify: a notice, or a request's notification
// the Prompter words itself.
func (rn *requestNotices) Notify(id, title, message string) error {
	return rn.notifier().Send(id, title, message)
}

// Announce is the Prompter's Announce.
func (rn *requestNotices) Announce(n prompt.Notice) error {
	return rn.notifier().Post(notifications.Note{Key: n.ID, Group: n.Group, Title: n.Title, Body: n.Body, Line: n.Line})
}

// Unannounce is the Prompter's Unannounce.
func (rn *requestNotices) Unannounce(id string) {
	if err := rn.notifier().Withdraw(id); err != nil {
		rn.log.Warn("take back a request's notification", "request", id, "err", err)
	}
}

// notificationAction carries out an action on request id's notification:
// Open shows the inbox at the request (or at what is pending, when it was
// decided meanwhile); Deny denies it.
func notificationAction(p *prompt.Prompter, id, action string, log *slog.Logger) {
	log.Info("notification action", "request", id, "action", action)
	switch action {
	case notifications.ActionOpen:
		fyne.Do(func() {
			if !p.OpenID(id) {
				p.ShowAll()
			}
		})
	case notifications.ActionDeny:
		p.DenyID(id)
	}
}
