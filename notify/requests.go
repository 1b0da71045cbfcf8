package notify

import (
	"fmt"
	"strings"

	"github.com/godbus/dbus/v5"
)

// Note is one request's notification.
type Note struct {
	// Key is the request's id: an action on the notification reaches
	// OnAction with it, and Withdraw(Key) takes the notification back.
	Key string
	// Group is who asks and where, "Claude in myproject": a request of a
	// group whose notification is still shown joins it, so that a burst
	// of requests is one notification that counts them.
	Group string
	// Title and Body are shown while the request is its group's only one.
	Title, Body string
	// Line is the request in a summary's list: "read report.csv".
	Line string
}

// summaryLines bounds the lines a summary lists: the count says the rest.
const summaryLines = 4

// group is one notification on the server and the requests it shows,
// oldest first. Its id is the server's, reused as replaces_id for every
// change, so the person sees one notification per group, never a stack.
type group struct {
	name  string
	id    uint32
	notes []Note
}

// withdrawnMemory bounds the requests remembered as withdrawn before
// their notification was posted (Post runs on its own goroutine and may
// come second).
const withdrawnMemory = 256

// Post shows note: as its own notification, or, when its group's
// notification is still shown, by updating that one to count the group's
// requests ("3 requests from Claude in myproject"). A note whose request
// was already withdrawn is not posted. Without a server that supports
// actions it is a plain notification, which cannot be taken back. A
// request already shown is not posted again.
func (n *Notifier) Post(note Note) error {
	if !n.actions {
		return n.opts.Plain(note.Title, note.Body)
	}
	n.postMu.Lock()
	defer n.postMu.Unlock()
	if _, err := n.refreshOwner(); err != nil {
		return err
	}
	n.mu.Lock()
	if n.withdrawn[note.Key] || n.byKey(note.Key) != nil {
		// withdrawn meanwhile, or shown already (a request shown again
		// after the app reconnected): nothing new to tell
		n.mu.Unlock()
		return nil
	}
	g := n.groups[note.Group]
	if g == nil {
		g = &group{name: note.Group}
	}
	g.notes = append(g.notes, note)
	n.mu.Unlock()
	return n.show(g, false)
}

// Withdraw takes back the notification of request key, which ended
// (decided, withdrawn, expired, its call gone): closed when it was its
// group's only request, else its group's notification counts one less.
// A notification that only says what is over does nothing when clicked,
// so none is left behind.
func (n *Notifier) Withdraw(key string) error {
	if !n.actions {
		return nil
	}
	n.postMu.Lock()
	defer n.postMu.Unlock()
	n.mu.Lock()
	n.remember(key)
	g := n.byKey(key)
	if g == nil {
		n.mu.Unlock()
		return nil
	}
	g.notes = removeKey(g.notes, key)
	empty, id := len(g.notes) == 0, g.id
	if empty {
		n.forget(g)
	}
	n.mu.Unlock()
	if !empty {
		return n.show(g, true)
	}
	if err := n.conn.Object(Service, Path).Call(Service+".CloseNotification", 0, id).Err; err != nil {
		return fmt.Errorf("close the notification of request %s: %w", key, err)
	}
	return nil
}

// show posts g as it is now, replacing its notification when it has one;
// quiet for a count that went down, which is no news worth a sound.
// Called with postMu held.
func (n *Notifier) show(g *group, quiet bool) error {
	n.mu.Lock()
	title, body, actions := g.text()
	replaces := g.id
	n.mu.Unlock()
	if n.markup {
		body = markupEscaper.Replace(body) // an agent's path is text, never markup
	}
	hints := map[string]dbus.Variant{"urgency": dbus.MakeVariant(byte(1))}
	if quiet {
		hints["suppress-sound"] = dbus.MakeVariant(true)
	}
	var id uint32
	call := n.conn.Object(Service, Path).Call(Service+".Notify", 0,
		n.opts.AppName, replaces, "", title, body, actions, hints, int32(-1))
	if err := call.Store(&id); err != nil {
		return fmt.Errorf("post the notification: %w", err)
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if replaces != 0 && replaces != id {
		delete(n.shown, replaces)
	}
	g.id = id
	n.shown[id] = g
	n.groups[g.name] = g
	return nil
}

// text is what g's notification says: its one request's own title and
// body with Open and Deny; or a count with the requests listed and Open
// alone, since a Deny there could not say which request it denies.
// Called with mu held.
func (g *group) text() (title, body string, actions []string) {
	if len(g.notes) == 1 {
		return g.notes[0].Title, g.notes[0].Body, actionList
	}
	title = SummaryTitle(len(g.notes), g.name)
	var lines []string
	for i, note := range g.notes {
		if i == summaryLines {
			lines = append(lines, fmt.Sprintf("and %d more", len(g.notes)-i))
			break
		}
		lines = append(lines, note.Line)
	}
	return title, strings.Join(lines, "\n"), openOnly
}

// openOnly is a summary's actions: the click opens the inbox.
var openOnly = []string{ActionOpen, "Open"}

// SummaryTitle is a burst's notification: "3 requests from Claude in
// myproject".
func SummaryTitle(count int, group string) string {
	return fmt.Sprintf("%d requests from %s", count, group)
}

// byKey finds the group showing request key. Called with mu held.
func (n *Notifier) byKey(key string) *group {
	for _, g := range n.groups {
		for _, note := range g.notes {
			if note.Key == key {
				return g
			}
		}
	}
	return nil
}

// forget drops g: its notification is closed or means nothing now.
// Called with mu held.
func (n *Notifier) forget(g *group) {
	delete(n.shown, g.id)
	if n.groups[g.name] == g {
		delete(n.groups, g.name)
	}
}

// remember notes key as withdrawn, forgetting the oldest beyond the bound.
// Called with mu held.
func (n *Notifier) remember(key string) {
	if n.withdrawn[key] {
		return
	}
	n.withdrawn[key] = true
	n.withdrawnOrder = append(n.withdrawnOrder, key)
	if len(n.withdrawnOrder) > withdrawnMemory {
		delete(n.withdrawn, n.withdrawnOrder[0])
		n.withdrawnOrder = n.withdrawnOrder[1:]
	}
}

func removeKey(notes []Note, key string) []Note {
	out := notes[:0]
	for _, note := range notes {
		if note.Key != key {
			out = append(out, note)
		}
	}
	return out
}
