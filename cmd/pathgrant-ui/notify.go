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

// requestNotifier is the inbox's Notify: one notification per new
// request, with the actions Open and Deny where the notification server
// supports them (never Allow: approving stays in the window or with the
// code). It connects to the session bus at the first notification, off
// the UI goroutine; inbox gives the Prompter the actions go to.
func requestNotifier(log *slog.Logger, inbox func() *prompt.Prompter) func(id, title, message string) error {
	var once sync.Once
	var n *notifications.Notifier
	return func(id, title, message string) error {
		once.Do(func() {
			n = notifications.New(notifications.Options{AppName: "pathgrant", Icon: assets.Icon, Log: log,
				OnAction: func(id, action string) { notificationAction(inbox(), id, action, log) }})
		})
		return n.Send(id, title, message)
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
