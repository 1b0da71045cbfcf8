package prompt

import (
	"path/filepath"

	"pathgrant/wire"
)

// Notice is a request's notification as the inbox words it: the app
// posts it (package notify) and takes it back when the request leaves
// the inbox.
type Notice struct {
	ID string // the request's
	// Group is who asks and where, "Claude in myproject": requests of one
	// group arriving together are summarised in one notification.
	Group string
	// Title is NotifyTitle; Body names the agent, the project and the
	// file, "Claude in myproject wants to read report.csv", and on its
	// second line where the file is.
	Title, Body string
	// Line is the request in a summary's list: "read report.csv".
	Line string
}

// NoticeFor is r's notification: never the code, nor anything the
// person could approve from.
func NoticeFor(r wire.Request) Notice {
	group := NoticeGroup(r)
	return Notice{
		ID:    r.ID,
		Group: group,
		Title: NotifyTitle,
		Body:  group + " wants to " + Verb(r) + " " + Heading(r) + "\n" + Target(r, home()),
		Line:  Verb(r) + " " + Heading(r),
	}
}

// NoticeGroup names r's agent and its project, the base name of the
// session's folder: "Claude in myproject"; the agent alone when the
// folder is unknown.
func NoticeGroup(r wire.Request) string {
	name := AgentName(r.Agent)
	if r.Cwd == "" || r.Cwd == "/" {
		return name
	}
	return name + " in " + wire.Cut(wire.Printable(filepath.Base(r.Cwd)), maxAgentName)
}

// announce posts r's notification: through Announce when the app set it,
// else as a plain Notify. A request the person raised themselves (Allow…
// in the audit, a grant made in settings) has none: they are at the
// window, and no agent wants anything.
func (p *Prompter) announce(r wire.Request) {
	if r.Asked != "" {
		return
	}
	if p.Announce == nil {
		p.notify(r)
		return
	}
	if err := p.Announce(NoticeFor(r)); err != nil {
		p.notifyOnce.Do(func() {
			p.log().Warn("notifications unavailable; requests still open in the inbox window", "err", err)
		})
	}
}

// unannounce takes back request id's notification: the request left the
// inbox (decided, withdrawn, expired, its call ended), and a notification
// of it would do nothing when clicked.
func (p *Prompter) unannounce(id string) {
	if p.Unannounce != nil {
		go p.Unannounce(id)
	}
}
