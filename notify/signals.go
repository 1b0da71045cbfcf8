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
// for a notification this Notifier sent reaches OnAction once; a
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
		key, ok := n.take(sender, id)
		if !ok {
			return
		}
		if (action == ActionOpen || action == ActionDeny) && n.opts.OnAction != nil {
			n.opts.OnAction(key, action)
		}
	case Service + ".NotificationClosed":
		n.take(sender, id)
	}
}

// take removes and returns the key of notification id, if sender is the
// service's owner and id is one this Notifier sent.
func (n *Notifier) take(sender string, id uint32) (string, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if sender == "" || sender != n.owner {
		n.log().Warn("notification signal from a sender that is not the notification server: ignored",
			"sender", sender, "server", n.owner, "notification", id)
		return "", false
	}
	key, ok := n.sent[id]
	if ok {
		delete(n.sent, id)
	}
	return key, ok
}
