package notify

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// step is one thing that happens to requests' notifications: a request
// posted (post) or withdrawn (withdraw), the person dismissing the
// notification the server numbered dismiss, or the person clicking
// action on notification click.
type step struct {
	post, withdraw string
	group          string // of post; "" is groupA
	dismiss        uint32
	click          uint32
	action         string
}

const (
	groupA = "Claude in myproject"
	groupB = "Codex in tool"
)

func noteFor(key, group string) Note {
	if group == "" {
		group = groupA
	}
	return Note{Key: key, Group: group, Title: group + " wants to read " + key, Body: "in ~/Downloads", Line: "read " + key}
}

// TestRequestNotifications: one notification per request, naming who
// asks; taken back when the request ends; a burst of one group is one
// notification with the count; nothing left behind that does nothing
// when clicked.
func TestRequestNotifications(t *testing.T) {
	tests := []struct {
		name    string
		steps   []step
		shown   []string // what the person sees at the end
		actions []string // what reached OnAction
		notify  int      // Notify calls the server received
	}{
		{name: "one request: its own notification",
			steps: []step{{post: "a.csv"}},
			shown: []string{groupA + " wants to read a.csv"}, notify: 1},
		{name: "send, then withdraw: closed",
			steps:  []step{{post: "a.csv"}, {withdraw: "a.csv"}},
			shown:  nil,
			notify: 1},
		{name: "a burst of five: one notification with the count",
			steps: []step{{post: "1"}, {post: "2"}, {post: "3"}, {post: "4"}, {post: "5"}},
			shown: []string{"5 requests from " + groupA}, notify: 5},
		{name: "a decided request leaves the burst's count",
			steps: []step{{post: "1"}, {post: "2"}, {post: "3"}, {withdraw: "2"}},
			shown: []string{"2 requests from " + groupA}, notify: 4},
		{name: "a burst down to one: that request's own notification",
			steps: []step{{post: "1"}, {post: "2"}, {withdraw: "1"}},
			shown: []string{groupA + " wants to read 2"}, notify: 3},
		{name: "every request of a burst decided: nothing left",
			steps: []step{{post: "1"}, {post: "2"}, {withdraw: "1"}, {withdraw: "2"}},
			shown: nil, notify: 3},
		{name: "two groups: two notifications, each withdrawn alone",
			steps: []step{{post: "a"}, {post: "b", group: groupB}, {post: "c", group: groupB}, {withdraw: "a"}},
			shown: []string{"2 requests from " + groupB}, notify: 3},
		{name: "withdrawn before its notification was posted: never shown",
			steps: []step{{withdraw: "a.csv"}, {post: "a.csv"}},
			shown: nil, notify: 0},
		{name: "a request shown again: not posted again",
			steps: []step{{post: "1"}, {post: "1"}},
			shown: []string{groupA + " wants to read 1"}, notify: 1},
		{name: "dismissed by the person: the next request is a notification of its own",
			steps: []step{{post: "1"}, {dismiss: 1}, {post: "2"}},
			shown: []string{groupA + " wants to read 2"}, notify: 2},
		{name: "a request's Deny",
			steps:   []step{{post: "1"}, {click: 1, action: ActionDeny}},
			shown:   []string{groupA + " wants to read 1"},
			actions: []string{"1 deny"}, notify: 1},
		{name: "a summary's Open opens its oldest request; its Deny denies nothing",
			steps:   []step{{post: "1"}, {post: "2"}, {click: 1, action: ActionDeny}, {click: 1, action: ActionOpen}},
			shown:   []string{"2 requests from " + groupA},
			actions: []string{"1 default"}, notify: 2},
		{name: "a click on a notification taken back does nothing",
			steps:   []step{{post: "1"}, {withdraw: "1"}, {click: 1, action: ActionOpen}},
			shown:   nil,
			actions: nil, notify: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			addr := startBus(t)
			srv := startServer(t, addr, "body", "actions")
			got := &actions{}
			n := New(Options{Address: addr, AppName: "pathgrant", OnAction: got.on})
			defer n.Close()
			for _, st := range tc.steps {
				runStep(t, n, srv, st)
			}
			if shown := srv.shown(); !slices.Equal(shown, tc.shown) {
				t.Errorf("shown %q, want %q", shown, tc.shown)
			}
			if list := got.list(); !slices.Equal(list, tc.actions) {
				t.Errorf("actions %q, want %q", list, tc.actions)
			}
			if calls := len(srv.notes()); calls != tc.notify {
				t.Errorf("%d Notify calls, want %d: %+v", calls, tc.notify, srv.notes())
			}
		})
	}
}

func runStep(t *testing.T, n *Notifier, srv *fakeServer, st step) {
	t.Helper()
	switch {
	case st.post != "":
		if err := n.Post(noteFor(st.post, st.group)); err != nil {
			t.Fatal(err)
		}
	case st.withdraw != "":
		if err := n.Withdraw(st.withdraw); err != nil {
			t.Fatal(err)
		}
	case st.dismiss != 0:
		srv.dismiss(t, st.dismiss)
	case st.click != 0:
		emit(t, srv.conn, "ActionInvoked", st.click, st.action)
	}
	settle(t, srv)
}

// settle waits until the Notifier handled every signal the server sent
// so far: one it sends after them comes back after them.
func settle(t *testing.T, srv *fakeServer) {
	t.Helper()
	emit(t, srv.conn, "NotificationClosed", 1000, uint32(1))
	time.Sleep(50 * time.Millisecond)
}

// TestSummaryText: a burst's notification counts its requests, lists a
// few, and says how many more; it offers Open alone, never Allow nor a
// Deny that could not say which request it denies.
func TestSummaryText(t *testing.T) {
	tests := []struct {
		name  string
		posts int
		lines []string
	}{
		{"two", 2, []string{"read 0", "read 1"}},
		{"four", 4, []string{"read 0", "read 1", "read 2", "read 3"}},
		{"six", 6, []string{"read 0", "read 1", "read 2", "read 3", "and 2 more"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			addr := startBus(t)
			srv := startServer(t, addr, "body", "actions")
			n := New(Options{Address: addr})
			defer n.Close()
			for i := range tc.posts {
				if err := n.Post(noteFor(string(rune('0'+i)), groupA)); err != nil {
					t.Fatal(err)
				}
			}
			notes := srv.notes()
			last := notes[len(notes)-1]
			if want := SummaryTitle(tc.posts, groupA); last.summary != want {
				t.Errorf("summary %q, want %q", last.summary, want)
			}
			if lines := strings.Split(last.body, "\n"); !slices.Equal(lines, tc.lines) {
				t.Errorf("body %q, want %q", lines, tc.lines)
			}
			if !slices.Equal(last.actions, []string{ActionOpen, "Open"}) {
				t.Errorf("a summary's actions %q", last.actions)
			}
			for _, nt := range notes[1:] {
				if nt.replaces != 1 {
					t.Errorf("a burst's notification did not replace the first: %+v", nt)
				}
			}
		})
	}
}

// TestPostPlain: without a server that supports actions a request's
// notification is plain, and withdrawing it does nothing (it cannot be
// taken back).
func TestPostPlain(t *testing.T) {
	addr := startBus(t)
	var plain []string
	n := New(Options{Address: addr, Plain: func(title, body string) error {
		plain = append(plain, title)
		return nil
	}})
	defer n.Close()
	if err := n.Post(noteFor("a.csv", "")); err != nil {
		t.Fatal(err)
	}
	if err := n.Withdraw("a.csv"); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(plain, []string{groupA + " wants to read a.csv"}) {
		t.Fatalf("plain %q", plain)
	}
}

// TestCountDownQuiet: a new request's notification may sound; the same
// notification counting one request less, as the person decides them,
// asks the server not to.
func TestCountDownQuiet(t *testing.T) {
	addr := startBus(t)
	srv := startServer(t, addr, "body", "actions")
	n := New(Options{Address: addr})
	defer n.Close()
	for _, key := range []string{"1", "2", "3"} {
		if err := n.Post(noteFor(key, groupA)); err != nil {
			t.Fatal(err)
		}
	}
	if err := n.Withdraw("1"); err != nil {
		t.Fatal(err)
	}
	var quiet []bool
	for _, nt := range srv.notes() {
		quiet = append(quiet, nt.quiet)
	}
	if want := []bool{false, false, false, true}; !slices.Equal(quiet, want) {
		t.Fatalf("suppress-sound per Notify %v, want %v", quiet, want)
	}
}
