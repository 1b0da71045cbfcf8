package prompt

import (
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"pathgrant/wire"
)

// TestNoticeFor: a request's notification names the agent, the project
// (the session folder's base name) and the file; where it is goes in the
// body; never the code nor a way to approve.
func TestNoticeFor(t *testing.T) {
	t.Setenv("HOME", "/home/u")
	read := func(agent, cwd, path string) wire.Request {
		return wire.Request{ID: "r1", Agent: agent, RequestContext: wire.RequestContext{Cwd: cwd}, Op: wire.OpRead, Path: path}
	}
	tests := []struct {
		name string
		r    wire.Request
		want Notice
	}{
		{"a file in Downloads", read("claude", "/home/u/src/myproject", "/home/u/Downloads/report.csv"),
			Notice{ID: "r1", Group: "Claude in myproject", Title: NotifyTitle,
				Body: "Claude in myproject wants to read report.csv\nin ~/Downloads", Line: "read report.csv"}},
		{"no session folder", read("codex", "", "/home/u/Documents/spec.pdf"),
			Notice{ID: "r1", Group: "Codex", Title: NotifyTitle, Body: "Codex wants to read spec.pdf\nin ~/Documents", Line: "read spec.pdf"}},
		{"a destination", wire.Request{ID: "r1", Agent: "claude", RequestContext: wire.RequestContext{Cwd: "/w/app"},
			Op: wire.OpConnect, Path: "pypi.org:443"},
			Notice{ID: "r1", Group: "Claude in app", Title: NotifyTitle,
				Body: "Claude in app wants to connect to pypi.org:443\nover the network, through pathgrant's proxy", Line: "connect to pypi.org:443"}},
		{"a project name that hides text", read("claude", "/w/a\u202eb", "/home/u/Downloads/x"),
			Notice{ID: "r1", Group: `Claude in a\u202eb`, Title: NotifyTitle, Body: `Claude in a\u202eb wants to read x` + "\nin ~/Downloads",
				Line: "read x"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := NoticeFor(tc.r); got != tc.want {
				t.Errorf("NoticeFor\n%+v\nwant\n%+v", got, tc.want)
			}
		})
	}
}

// announcements records Announce and Unannounce.
type announcements struct {
	mu  sync.Mutex
	got []string
}

func (a *announcements) add(s string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.got = append(a.got, s)
}

func (a *announcements) list() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.got)
}

// TestInboxAnnounces: a request shown is announced once, with its code
// nowhere; it is taken back when it leaves the inbox (decided in the
// window or elsewhere, withdrawn), and no plain Notify duplicates it.
func TestInboxAnnounces(t *testing.T) {
	tests := []struct {
		name  string
		leave func(h *harness)
	}{
		{"withdrawn by the daemon", func(h *harness) { h.p.Withdraw("a") }},
		{"denied from its notification", func(h *harness) { h.p.DenyID("a") }},
		{"its waiting command ended", func(h *harness) {
			r := request("a", "s")
			r.State, r.Ended = wire.StateEnded, "the command ended"
			h.p.Update(r)
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newTestPrompter(t)
			an := &announcements{}
			h.p.Announce = func(n Notice) error { an.add("post " + n.ID + " " + n.Body); return nil }
			h.p.Unannounce = func(id string) { an.add("withdraw " + id) }
			h.p.Show(request("a", "s"), testCodes("K7MP"))
			h.eventually(t, "announced", func() bool { return len(an.list()) == 1 })
			tc.leave(h)
			h.eventually(t, "taken back", func() bool { return len(an.list()) == 2 })
			got := an.list()
			if !strings.HasPrefix(got[0], "post a Claude in sub wants to read a.csv") || strings.Contains(got[0], "K7MP") ||
				got[1] != "withdraw a" {
				t.Fatalf("announcements %q", got)
			}
			if plain := h.ns.list(); len(plain) != 0 {
				t.Fatalf("a plain notification beside the announcement: %q", plain)
			}
		})
	}
}

// TestInboxAsksNoNotificationForThePersonsOwn: a request the person
// raised from settings (Allow…, New grant…) joins the inbox without a
// notification that an agent wants something.
func TestInboxAsksNoNotificationForThePersonsOwn(t *testing.T) {
	tests := []struct {
		asked string
		posts int
	}{{"", 1}, {wire.AskedAudit, 0}, {wire.AskedSettings, 0}}
	for _, tc := range tests {
		t.Run("asked="+tc.asked, func(t *testing.T) {
			h := newTestPrompter(t)
			an := &announcements{}
			h.p.Announce = func(n Notice) error { an.add(n.ID); return nil }
			r := request("a", "s")
			r.Asked = tc.asked
			h.p.Show(r, nil)
			h.eventually(t, "in the inbox", func() bool { return len(h.p.Pending()) == 1 })
			time.Sleep(100 * time.Millisecond)
			if got := len(an.list()) + len(h.ns.list()); got != tc.posts {
				t.Fatalf("%d notifications, want %d", got, tc.posts)
			}
		})
	}
}
