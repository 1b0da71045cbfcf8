// Package notify posts pathgrant's desktop notifications: through the
// freedesktop notification server on the session bus, with the actions
// "Open" and "Deny" when the server supports actions, else as a plain
// notification. There is never an "Allow" action: approving stays in the
// app's window or with the approval code. An action is taken only from
// the bus name that owns the notification service, and only for a
// notification this Notifier sent.
//
// A request's notification (Post) is taken back when the request ends
// (Withdraw, the freedesktop CloseNotification), and requests of one
// agent in one project while its notification is shown update that one
// notification (replaces_id) to count them, instead of stacking toasts.
package notify

import (
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"

	"github.com/gen2brain/beeep"
	"github.com/godbus/dbus/v5"
)

// The freedesktop notification service.
const (
	Service = "org.freedesktop.Notifications"
	Path    = dbus.ObjectPath("/org/freedesktop/Notifications")
)

// The actions a notification about a request carries: the default one
// (a click on it) opens the request, the other denies it.
const (
	ActionOpen = "default"
	ActionDeny = "deny"
)

// actionList is the Notify call's actions argument: key, label pairs.
var actionList = []string{ActionOpen, "Open", ActionDeny, "Deny"}

// Options configure a Notifier.
type Options struct {
	// Address is the bus to use; "" is the session bus.
	Address string
	AppName string
	Icon    []byte // the plain fallback's icon
	// OnAction receives a person's action on a notification sent with a
	// key: the key and ActionOpen or ActionDeny. It runs on the
	// Notifier's own goroutine and must not block.
	OnAction func(key, action string)
	Log      *slog.Logger
	// Plain posts a notification without actions; nil is beeep's.
	Plain func(title, body string) error
}

// Notifier posts notifications and follows their actions.
type Notifier struct {
	opts    Options
	conn    *dbus.Conn
	actions bool // the server supports actions
	markup  bool // the server renders markup in the body: it is escaped

	// postMu orders Post and Withdraw, each with its server call, so a
	// request withdrawn while its notification is being posted is closed
	// after it, or never posted.
	postMu sync.Mutex
	mu     sync.Mutex
	owner  string            // the unique bus name that owned Service at the last send
	sent   map[uint32]string // notification id -> key (Send), until its action or its close
	// Requests' notifications (Post): by server id, by group, and the
	// requests withdrawn lately, oldest first.
	shown          map[uint32]*group
	groups         map[string]*group
	withdrawn      map[string]bool
	withdrawnOrder []string
}

// New connects to the bus and asks the notification server what it
// supports. It always returns a usable Notifier: without a bus or a
// server that supports actions it posts plain notifications.
func New(opts Options) *Notifier {
	n := &Notifier{opts: opts, sent: map[uint32]string{}, shown: map[uint32]*group{}, groups: map[string]*group{},
		withdrawn: map[string]bool{}}
	if n.opts.Plain == nil {
		icon := opts.Icon
		n.opts.Plain = func(title, body string) error { return beeep.Notify(title, body, icon) }
	}
	if err := n.connect(); err != nil {
		n.log().Info("notifications without actions", "err", err)
		if n.conn != nil {
			_ = n.conn.Close()
			n.conn = nil
		}
	}
	return n
}

// connect opens a private connection (the toolkit may share the session
// bus), checks the server's capabilities and listens for its signals.
func (n *Notifier) connect() error {
	var err error
	if n.opts.Address == "" {
		n.conn, err = dbus.ConnectSessionBus()
	} else {
		n.conn, err = dbus.Connect(n.opts.Address)
	}
	if err != nil {
		return fmt.Errorf("connect to the session bus: %w", err)
	}
	var caps []string
	if err := n.conn.Object(Service, Path).Call(Service+".GetCapabilities", 0).Store(&caps); err != nil {
		return fmt.Errorf("ask the notification server its capabilities: %w", err)
	}
	n.markup = slices.Contains(caps, "body-markup")
	if !slices.Contains(caps, "actions") {
		return errors.New("the notification server does not support actions")
	}
	if _, err := n.refreshOwner(); err != nil {
		return err
	}
	// No sender in the match: the sender is checked on every signal, so a
	// server that restarts under a new unique name is followed, and a
	// signal from anyone else is seen and refused, not just filtered.
	if err := n.conn.AddMatchSignal(dbus.WithMatchInterface(Service), dbus.WithMatchObjectPath(Path)); err != nil {
		return fmt.Errorf("listen for notification actions: %w", err)
	}
	ch := make(chan *dbus.Signal, 16)
	n.conn.Signal(ch)
	go n.listen(ch)
	n.actions = true
	return nil
}

// refreshOwner asks the bus which unique name owns Service now.
func (n *Notifier) refreshOwner() (string, error) {
	var owner string
	if err := n.conn.BusObject().Call("org.freedesktop.DBus.GetNameOwner", 0, Service).Store(&owner); err != nil {
		return "", fmt.Errorf("find the notification server's bus name: %w", err)
	}
	n.mu.Lock()
	if owner != n.owner {
		// another server: the ids the old one issued mean nothing to it,
		// and no action of its may reach a request through them
		clear(n.sent)
		clear(n.shown)
		clear(n.groups)
	}
	n.owner = owner
	n.mu.Unlock()
	return owner, nil
}

// Actions reports whether notifications carry actions.
func (n *Notifier) Actions() bool { return n.actions }

// Send posts a notification. With a key (a request's id) and a server
// that supports actions it carries Open and Deny, and an action on it
// reaches OnAction with the key; without a key it is a plain notice.
func (n *Notifier) Send(key, title, body string) error {
	if !n.actions {
		return n.opts.Plain(title, body)
	}
	if _, err := n.refreshOwner(); err != nil {
		return err
	}
	var actions []string
	if key != "" {
		actions = actionList
	}
	if n.markup {
		body = markupEscaper.Replace(body) // an agent's path is text, never markup
	}
	hints := map[string]dbus.Variant{"urgency": dbus.MakeVariant(byte(1))}
	var id uint32
	call := n.conn.Object(Service, Path).Call(Service+".Notify", 0,
		n.opts.AppName, uint32(0), "", title, body, actions, hints, int32(-1))
	if err := call.Store(&id); err != nil {
		return fmt.Errorf("post the notification: %w", err)
	}
	if key != "" {
		n.mu.Lock()
		n.sent[id] = key
		n.mu.Unlock()
	}
	return nil
}

// markupEscaper escapes what the notification spec's body markup reads.
var markupEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

// Close stops listening and closes the connection.
func (n *Notifier) Close() error {
	if n.conn == nil {
		return nil
	}
	return n.conn.Close()
}

func (n *Notifier) log() *slog.Logger {
	if n.opts.Log != nil {
		return n.opts.Log
	}
	return slog.Default()
}
