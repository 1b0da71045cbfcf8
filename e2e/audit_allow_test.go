package e2e

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"

	"pathgrant/apiclient"
	"pathgrant/grants"
	"pathgrant/prompt"
	"pathgrant/tray"
	"pathgrant/wire"
)

// TestAuditAllow is issue 43's "the audit's Allow… creates a grant that a
// retry uses", through the real app's windows: an agent's read of
// ~/Projects/notes.txt (outside the eligible roots, not never-eligible)
// is refused with no request and a reason pointing at the settings; in
// the settings window's Audit tab the person clicks that row's Allow…,
// the inbox shows a request asked from the audit, "Allow for this
// session" is clicked, and the same check from the same session is then
// allowed. A refused read of ~/.ssh/id_rsa has no Allow…, and a click
// where it would be raises nothing.
func TestAuditAllow(t *testing.T) {
	d := startDesktop(t)
	e := newAppEnv(t)
	notesPath, sshPath := e.home+"/Projects/notes.txt", e.home+"/.ssh/id_rsa"
	for _, f := range []string{notesPath, sshPath} {
		if err := os.MkdirAll(filepath.Dir(f), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte("secret\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	startTheApp(t, d, e, "audit-allow-app.log")
	c := apiclient.New(e.socket)
	agent := agentSession(t, e)
	ssh := wire.CheckRequest{Command: "cat ~/.ssh/id_rsa", Tool: "Bash"}
	notes := wire.CheckRequest{Command: "cat ~/Projects/notes.txt", Tool: "Bash"}

	// The never-eligible read first, so that the notes row is the newest
	// (the audit lists newest first).
	refusedUnasked(t, c, <-agentCheck(t, e, agent, ssh), "can never be approved")
	refusedUnasked(t, c, <-agentCheck(t, e, agent, notes), "Audit → Allow…")

	// The settings window the app opened at start (no tray here), on its
	// Audit tab once it refreshed.
	win := strings.Fields(d.output(t, "xdotool", "search", "--sync", "--onlyvisible", "--name", tray.SettingsTitle))[0]
	time.Sleep(2500 * time.Millisecond) // a refresh after the two refusals
	size := windowSize(t, d, win)
	click(t, d, win, tabCenter(t, c, tray.TabAudit, size))
	time.Sleep(time.Second)
	at := auditPlaces(t, c, size, "/.ssh/id_rsa")
	d.output(t, "dunstctl", "close-all") // the no-tray notice, off the picture
	time.Sleep(300 * time.Millisecond)
	windowShot(t, d, win, "settings-audit-allow.png")
	docImage(t, filepath.Join(artifactDir(t), "settings-audit-allow.png"))

	// Where the ssh row's Allow… would be, there is nothing to press.
	click(t, d, win, fyne.NewPos(at.allow.X, at.other.Y))
	time.Sleep(1500 * time.Millisecond)
	if ps, err := c.Pending(context.Background()); err != nil || len(ps) != 0 {
		t.Fatalf("a click on the never-eligible row raised %+v %v", ps, err)
	}

	click(t, d, win, at.allow)
	req := pendingOne(t, c)
	if req.Asked != wire.AskedAudit || req.Path != notesPath || req.Session != agent.Session || req.Op != wire.OpRead {
		t.Fatalf("the request Allow… raised: %+v; want a read of %s for session %s, asked %q",
			req, notesPath, agent.Session, wire.AskedAudit)
	}
	// No window manager stacks the windows: the settings window goes so
	// that the click lands on the inbox.
	unmapAll(t, d, win)
	inbox := strings.Fields(d.output(t, "xdotool", "search", "--sync", "--onlyvisible", "--name", prompt.WindowTitle))[0]
	time.Sleep(time.Second) // laid out at its size
	d.screenshot(t, "audit-allow-inbox.png")
	clickButton(t, d, inbox, req, prompt.LabelSession)
	waitUntil(t, 20*time.Second, "the request approved", func() bool { return requestState(t, c, req.ID) == wire.StateApproved })

	if ans := <-agentCheck(t, e, agent, notes); ans.Decision != wire.Allow {
		t.Fatalf("the retry after Allow…: %+v; want allowed", ans)
	}
	gs, err := c.Grants(context.Background(), agent.Session, false)
	if err != nil || len(gs) != 1 || gs[0].Path != notesPath || gs[0].Scope != grants.ScopeSession {
		t.Fatalf("grants of the session: %+v %v; want one session grant of %s", gs, err, notesPath)
	}
	refusedUnasked(t, c, <-agentCheck(t, e, agent, ssh), "can never be approved")
}

// refusedUnasked asserts an agent's check was refused outright, its
// reason saying want, and that nothing waits for the person.
func refusedUnasked(t *testing.T, c *apiclient.Client, ans wire.Answer, want string) {
	t.Helper()
	if ans.Decision != wire.Deny || ans.Pending != "" || !strings.Contains(ans.Reason, want) {
		t.Fatalf("answer %+v; want refused with no request, its reason saying %q", ans, want)
	}
	if ps, err := c.Pending(context.Background()); err != nil || len(ps) != 0 {
		t.Fatalf("pending after a refusal: %+v %v; want none", ps, err)
	}
}

// auditSpots are places in the settings window's Audit tab: the one
// Allow… button, and the row of another path.
type auditSpots struct {
	allow, other fyne.Position
}

// auditPlaces lays out the settings window at size, on its Audit tab
// with the daemon's records, with Fyne's test driver (the app's theme and
// scale) and returns where its only Allow… is and where the row whose
// path ends with other is. A backend that may ask stands for the app's link, so that
// Allow… is drawn where the app draws it; nothing is asked here.
func auditPlaces(t *testing.T, c *apiclient.Client, size fyne.Size, other string) auditSpots {
	t.Helper()
	a := test.NewTempApp(t)
	a.Settings().SetTheme(theme.DefaultTheme())
	s := tray.NewSettings(a, askingRemote{tray.Remote{Client: c}}, func(wire.Request) {})
	s.SetNotice(tray.NoTrayNotice)
	s.Reload()
	tabs := findTabs(s.Win.Content())
	if tabs == nil {
		t.Fatal("no tabs in the settings window")
	}
	for i, it := range tabs.Items {
		if it.Text == tray.TabAudit {
			tabs.SelectIndex(i)
		}
	}
	s.Win.Resize(size)
	s.Win.Resize(size.AddWidthHeight(0, 1))
	s.Win.Resize(size)
	test.LaidOutObjects(s.Win.Content())
	allows := textsAt(s.Win.Content(), func(s string) bool { return s == tray.LabelAllow }, fyne.Position{})
	if len(allows) != 1 {
		t.Fatalf("%d %q buttons in the audit, want one: the never-eligible row offers none", len(allows), tray.LabelAllow)
	}
	// This process's home is not the app's: the path is matched by its
	// end, which a cut path keeps.
	rows := textsAt(s.Win.Content(), func(s string) bool { return strings.HasSuffix(s, other) }, fyne.Position{})
	if len(rows) != 1 {
		t.Fatalf("%d audit rows show a path ending %q, want one", len(rows), other)
	}
	return auditSpots{allow: allows[0], other: rows[0]}
}

// findTabs is the first AppTabs in o's tree.
func findTabs(o fyne.CanvasObject) *container.AppTabs {
	switch v := o.(type) {
	case *container.AppTabs:
		return v
	case *fyne.Container:
		for _, c := range v.Objects {
			if tabs := findTabs(c); tabs != nil {
				return tabs
			}
		}
	}
	return nil
}

// textsAt is every visible place of a text match accepts in o's tree
// (centres relative to o's parent at origin), as textAt finds the first.
func textsAt(o fyne.CanvasObject, match func(string) bool, origin fyne.Position) []fyne.Position {
	at := origin.Add(o.Position())
	if txt, ok := o.(*canvas.Text); ok && match(txt.Text) {
		return []fyne.Position{at.Add(fyne.NewPos(txt.Size().Width/2, txt.Size().Height/2))}
	}
	var children []fyne.CanvasObject
	switch v := o.(type) {
	case *fyne.Container:
		children = v.Objects
	case fyne.Widget:
		children = test.WidgetRenderer(v).Objects()
	}
	var found []fyne.Position
	for _, c := range children {
		if c.Visible() {
			found = append(found, textsAt(c, match, at)...)
		}
	}
	return found
}

// askingRemote is the socket's backend drawn as the app's link draws it,
// with Allow…: only for laying out, it never asks.
type askingRemote struct{ r tray.Remote }

func (b askingRemote) Pending() ([]wire.Request, error)                    { return b.r.Pending() }
func (b askingRemote) Grants() ([]grants.Grant, error)                     { return b.r.Grants() }
func (b askingRemote) Audit(f grants.AuditFilter) ([]grants.Record, error) { return b.r.Audit(f) }
func (b askingRemote) Revoke(id string) error                              { return b.r.Revoke(id) }
func (b askingRemote) RevokeSession(s string) (int, error)                 { return b.r.RevokeSession(s) }
func (b askingRemote) Decide(id string, d wire.Decision) error             { return b.r.Decide(id, d) }
func (b askingRemote) Denials() ([]wire.Denial, error)                     { return b.r.Denials() }
func (b askingRemote) LiftDenial(id string) error                          { return b.r.LiftDenial(id) }
func (b askingRemote) Sessions() ([]wire.SessionInfo, error)               { return b.r.Sessions() }
func (b askingRemote) AskFromAudit(string) (wire.Request, error) {
	return wire.Request{}, errLayoutOnly
}
func (b askingRemote) AskForPath(wire.Op, string) (wire.Request, error) {
	return wire.Request{}, errLayoutOnly
}

var errLayoutOnly = errors.New("the layout's backend asks nothing")
