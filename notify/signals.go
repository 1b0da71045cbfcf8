package notify

import "github.com/godbus/dbus/v5"

// listen takes the notification server's signals until the connection
// closes.
func (n *Notifier) listen(ch <-chan *dbus.Signal) {
	for sig := range ch {
		n.handle(sig.Sender, sig.Name, sig.Body)
	}
}

// handle acts on one signal: an ActionInvoked from the service's owner
// for a notification this Notifier sent reaches OnAction; a
// NotificationClosed forgets the notification. Anything else, and any
// signal from another sender, is ignored (and a forged action logged).
func (n *Notifier) handle(sender, name string, body []any) {
	if len(body) < 2 {
		return
	}
	id, ok := body[0].(uint32)
	if !ok {
		return
	}
	switch name {
	case Service + ".ActionInvoked":
		action, _ := body[1].(string)
		if action != ActionOpen && action != ActionDeny {
			return
		}
		key, ok := n.acted(sender, id, action)
		if ok && n.opts.OnAction != nil {
			n.opts.OnAction(key, action)
		}
	case Service + ".NotificationClosed":
		n.closed(sender, id)
	}
}

// acted returns the request an action on notification id is for, if
// sender is the service's owner and id is one this Notifier sent. A
// plain Send's notification acts once; a request's (Post) stays known
// until it is closed, so that withdrawing its request still closes it on
// a server that keeps notifications after an action. A summary's Deny
// is refused: it could not say which request it denies.
func (n *Notifier) acted(sender string, id uint32, action string) (string, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if !n.fromOwner(sender, id) {
		return "", false
	}
	if key, ok := n.sent[id]; ok {
		delete(n.sent, id)
		return key, true
	}
	g, ok := n.shown[id]
	if !ok || len(g.notes) == 0 || (action == ActionDeny && len(g.notes) != 1) {
		return "", false
	}
	return g.notes[0].Key, true
}

// closed forgets notification id, which its server closed (expired,
// dismissed, or taken back), if sender is the service's owner.
func (n *Notifier) closed(sender string, id uint32) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if !n.fromOwner(sender, id) {
		return
	}
	delete(n.sent, id)
	if g, ok := n.shown[id]; ok {
		n.forget(g)
	}
}

// fromOwner reports whether sender owns the service; a signal from any
// other sender is logged. Called with mu held.
func (n *Notifier) fromOwner(sender string, id uint32) bool {
	if sender == "" || sender != n.owner {
		n.log().Warn("notification signal from a sender that is not the notification server: ignored",
			"sender", sender, "server", n.owner, "notification", id)
		return false
	}
	return true
}
