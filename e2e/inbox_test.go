package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"pathgrant/apiclient"
	"pathgrant/grants"
	"pathgrant/guard"
	"pathgrant/notify"
	"pathgrant/prompt"
	"pathgrant/wire"
)

// inboxDunstrc points dunst's context menu (where a notification's
// actions are picked) at a script standing in for dmenu: it picks the
// Deny action, and keeps what dunst offered for the test's log.
func inboxDunstrc(t *testing.T) string {
	dir := t.TempDir()
	script := filepath.Join(dir, "pick-deny")
	body := fmt.Sprintf("#!/bin/sh\ntee %q | grep -m1 Deny\n", filepath.Join(dir, "offered"))
	if err := os.WriteFile(script, []byte(body), 0o700); err != nil {
		t.Fatal(err)
	}
	return "[global]\n    dmenu = " + script + "\n"
}

// inbox is the app under test and one agent session's client.
type inbox struct {
	t     *testing.T
	d     *desktop
	e     appEnv
	agent *apiclient.Client
}

// startInbox starts the real app on a desktop whose dunst picks Deny in
// its context menu, and registers one agent session.
func startInbox(t *testing.T) (*inbox, *exec.Cmd) {
	d := startDesktopWith(t, inboxDunstrc(t))
	e := newAppEnv(t)
	app := startTheApp(t, d, e, "inbox-app.log")
	agent := agentSession(t, e)
	return &inbox{t: t, d: d, e: e, agent: agent}, app
}

// file makes a Downloads file and returns the check that reads it.
func (b *inbox) file(rel string) wire.CheckRequest {
	b.t.Helper()
	path := filepath.Join(b.e.home, "Downloads", rel)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		b.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("x\n"), 0o600); err != nil {
		b.t.Fatal(err)
	}
	return wire.CheckRequest{Command: "cat ~/Downloads/" + rel, Tool: "Bash"}
}

// ask sends a check that does not wait and returns its request's id.
func (b *inbox) ask(req wire.CheckRequest) string {
	b.t.Helper()
	ans, err := b.agent.Check(context.Background(), req)
	if err != nil || ans.Pending == "" {
		b.t.Fatalf("check %q: %+v %v", req.Command, ans, err)
	}
	return ans.Pending
}

// pending is the session's pending requests (this process sent checks,
// so it sees its own session's only).
func (b *inbox) pending() []wire.Request {
	b.t.Helper()
	rs, err := b.agent.Pending(context.Background())
	if err != nil {
		b.t.Fatal(err)
	}
	return rs
}

// windows are the visible inbox windows.
func (b *inbox) windows() []string {
	out, _ := b.d.command("xdotool", "search", "--onlyvisible", "--name", prompt.WindowTitle).Output()
	return strings.Fields(string(out))
}

// window waits for the one visible inbox window and its title to say
// want ("(1 of 5)").
func (b *inbox) window(want string) string {
	b.t.Helper()
	var win, name string
	waitUntil(b.t, 20*time.Second, "the inbox window titled "+want, func() bool {
		ws := b.windows()
		if len(ws) != 1 {
			return false
		}
		win = ws[0]
		out, _ := b.d.command("xdotool", "getwindowname", win).Output()
		name = strings.TrimSpace(string(out))
		return strings.HasSuffix(name, want)
	})
	return win
}

// key presses a key (xdotool's spelling, "alt+o") in the inbox window,
// once it has had the keyboard long enough for an allow key to act.
func (b *inbox) key(win, key string) {
	b.t.Helper()
	b.d.output(b.t, "xdotool", "mousemove", "--window", win, "12", "12")
	b.d.output(b.t, "xdotool", "mousemove", "--window", win, "20", "20")
	b.d.output(b.t, "xdotool", "windowfocus", "--sync", win)
	// an allow key acts once the buttons armed and the window has had the
	// keyboard for as long (prompt's KeyDelay)
	time.Sleep(2*prompt.ArmDelay + 400*time.Millisecond)
	b.d.output(b.t, "xdotool", "key", "--clearmodifiers", key)
}

// waitPending waits until the session has n pending requests.
func (b *inbox) waitPending(n int) []wire.Request {
	b.t.Helper()
	var rs []wire.Request
	waitUntil(b.t, 20*time.Second, fmt.Sprintf("%d pending requests", n), func() bool {
		rs = b.pending()
		return len(rs) == n
	})
	return rs
}

// denyAll denies the session's pending requests one by one with Alt+D.
func (b *inbox) denyAll() {
	b.t.Helper()
	for n := len(b.pending()); n > 0; n-- {
		b.key(b.window(fmt.Sprintf(" of %d)", n)), "alt+d")
		b.waitPending(n - 1)
	}
}

// notifications counts dunst's notifications (shown or in its history)
// by summary.
func (b *inbox) notifications() map[string]int {
	b.t.Helper()
	b.d.output(b.t, "dunstctl", "close-all")
	var hist struct {
		Data [][]struct {
			Summary struct{ Data string } `json:"summary"`
		} `json:"data"`
	}
	count := map[string]int{}
	if err := json.Unmarshal([]byte(b.d.output(b.t, "dunstctl", "history")), &hist); err != nil {
		b.t.Fatal(err)
	}
	for _, page := range hist.Data {
		for _, h := range page {
			count[h.Summary.Data]++
		}
	}
	return count
}

// displayed waits until dunst shows n notifications.
func (b *inbox) displayed(n int) {
	b.t.Helper()
	waitUntil(b.t, 10*time.Second, fmt.Sprintf("%d notifications shown", n), func() bool {
		out, err := b.d.command("dunstctl", "count", "displayed").Output()
		return err == nil && strings.TrimSpace(string(out)) == strconv.Itoa(n)
	})
}

// TestInbox drives the inbox window of the real app under Xvfb and dunst:
// one window for five requests, fifty waiting calls answered by one
// "Allow once", a remembered denial, the notifications' Open and Deny,
// and a long path.
func TestInbox(t *testing.T) {
	b, app := startInbox(t)
	t.Run("five requests, one window", func(t *testing.T) {
		b.t = t
		for i := range 5 {
			b.ask(b.file(fmt.Sprintf("report-%d.csv", i)))
		}
		b.window("(1 of 5)")
		if ws := b.windows(); len(ws) != 1 {
			t.Fatalf("%d inbox windows, want one", len(ws))
		}
		b.waitPending(5)
		b.d.screenshot(t, "inbox.png")
		// one notification that counts the five, never five toasts
		summary := notify.SummaryTitle(5, prompt.NoticeGroup(b.pending()[0]))
		if n := b.notifications(); n[summary] != 1 || n[prompt.NotifyTitle] != 0 {
			t.Fatalf("approval notifications %v, want one: %q", n, summary)
		}
		b.denyAll()
	})
	t.Run("fifty waiting calls, one Allow once", func(t *testing.T) {
		b.t = t
		read := b.file("waited.csv")
		answers := make([]<-chan wire.Answer, 50)
		for i := range answers {
			answers[i] = waitingCheck(b.agent, read)
		}
		waitUntil(t, 20*time.Second, "50 waiting calls on one request", func() bool {
			rs := b.pending()
			return len(rs) == 1 && rs[0].Waiting == 50
		})
		win := b.window("(1 of 1)")
		time.Sleep(1500 * time.Millisecond) // the window's clock shows the 50
		b.d.screenshot(t, "inbox-waiting.png")
		b.key(win, "alt+o")
		for i, ch := range answers {
			select {
			case ans := <-ch:
				if ans.Decision != guard.Allow {
					t.Fatalf("call %d answered %+v", i, ans)
				}
			case <-time.After(20 * time.Second):
				t.Fatalf("call %d never answered", i)
			}
		}
		if rs := b.pending(); len(rs) != 0 {
			t.Fatalf("still pending: %+v", rs)
		}
	})
	t.Run("deny for this session", func(t *testing.T) {
		b.t = t
		read := b.file("private.csv")
		answer := waitingCheck(b.agent, read)
		b.key(b.window("(1 of 1)"), "alt+r")
		select {
		case ans := <-answer:
			if ans.Decision != guard.Deny || !strings.Contains(ans.Reason, "denied by the person") {
				t.Fatalf("the waiting call was answered %+v", ans)
			}
		case <-time.After(20 * time.Second):
			t.Fatal("the waiting call was never answered")
		}
		ans, err := b.agent.Check(context.Background(), read)
		if err != nil || ans.Decision != guard.Deny || ans.Eligible || !strings.Contains(ans.Reason, "denied by the person") {
			t.Fatalf("the same access again: %+v %v", ans, err)
		}
		time.Sleep(time.Second)
		if rs, ws := b.pending(), b.windows(); len(rs) != 0 || len(ws) != 0 {
			t.Fatalf("a new request (%+v) or window (%v) for a remembered denial", rs, ws)
		}
	})
	t.Run("notification actions", func(t *testing.T) {
		b.t = t
		b.d.output(t, "dunstctl", "close-all")
		first := b.ask(b.file("first.csv"))
		b.window("(1 of 1)")
		b.displayed(1)
		b.d.output(t, "dunstctl", "close-all")
		second := b.ask(b.file("second.csv"))
		b.displayed(1)
		b.window("(1 of 2)") // it joined the queue behind the request shown
		b.d.output(t, "dunstctl", "action", "0")
		b.window("(2 of 2)") // Open: the inbox at that request
		b.d.output(t, "dunstctl", "close-all")
		third := b.ask(b.file("third.csv"))
		b.displayed(1)
		b.d.output(t, "dunstctl", "context")
		rs := b.waitPending(2)
		if ids := []string{rs[0].ID, rs[1].ID}; ids[0] != first || ids[1] != second {
			t.Fatalf("pending %v, want %s and %s: Deny should have denied %s", ids, first, second, third)
		}
		b.denyAll()
	})
	t.Run("a long path", func(t *testing.T) {
		b.t = t
		b.ask(b.file("quarterly-reports/2026/a-very-long-file-name-that-wraps.csv"))
		b.window("(1 of 1)")
		time.Sleep(time.Second)
		b.d.screenshot(t, "prompt-long-path.png")
		rs := b.pending()
		if len(rs) != 1 || !strings.HasSuffix(rs[0].Path, "/quarterly-reports/2026/a-very-long-file-name-that-wraps.csv") {
			t.Fatalf("pending %+v", rs)
		}
		b.denyAll()
	})
	b.t = t
	stopApp(t, app)
	denied := []string{"report-0.csv", "report-1.csv", "report-2.csv", "report-3.csv", "report-4.csv",
		"private.csv", "first.csv", "second.csv", "third.csv", "quarterly-reports/2026/a-very-long-file-name-that-wraps.csv"}
	assertInboxAudit(t, b.e, b.agent.Session, "waited.csv", denied)
}

// assertInboxAudit reads the audit log the app kept: one approval, of
// the file the fifty calls waited on, and a denial of each file denied in
// the window or through its notification.
func assertInboxAudit(t *testing.T, e appEnv, session, approved string, denied []string) {
	t.Helper()
	recs, err := openStore(t, e).AuditRecords(grants.AuditFilter{Session: session})
	if err != nil {
		t.Fatal(err)
	}
	downloads := e.home + "/Downloads/"
	approvals, denials := map[string]int{}, map[string]int{}
	for _, r := range recs {
		switch r.Kind {
		case grants.KindApprove:
			approvals[strings.TrimPrefix(r.Path, downloads)]++
		case grants.KindDeny:
			denials[strings.TrimPrefix(r.Path, downloads)]++
		}
	}
	if len(approvals) != 1 || approvals[approved] != 1 {
		t.Errorf("approvals %v, want one of %s", approvals, approved)
	}
	for _, f := range denied {
		if denials[f] == 0 {
			t.Errorf("no deny record for %s (denials %v)", f, denials)
		}
	}
}
