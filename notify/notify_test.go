package notify

import (
	"bufio"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
)

// startBus runs a private dbus-daemon for the test and returns its
// address; the test is skipped only when dbus-daemon is not installed.
func startBus(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("dbus-daemon"); err != nil {
		t.Skipf("dbus-daemon is not installed (scripts/deps installs it): %v", err)
	}
	cmd := exec.Command("dbus-daemon", "--session", "--nofork", "--print-address")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	addr, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("dbus-daemon printed no address: %v", err)
	}
	return strings.TrimSpace(addr)
}

// note is one Notify call the fake server received.
type note struct {
	summary, body string
	actions       []string
	replaces      uint32
	quiet         bool // the suppress-sound hint
}

// fakeServer is the smallest notification server: it owns the service
// name, answers GetCapabilities, Notify (replacing a shown notification
// in place, as the specification says) and CloseNotification, keeps what
// is shown, and emits signals on demand.
type fakeServer struct {
	conn *dbus.Conn
	caps []string
	mu   sync.Mutex
	got  []note
	last uint32
	live map[uint32]note // what the person sees now, by id
}

func (f *fakeServer) GetCapabilities() ([]string, *dbus.Error) { return f.caps, nil }

func (f *fakeServer) Notify(app string, replaces uint32, icon, summary, body string, actions []string,
	hints map[string]dbus.Variant, timeout int32) (uint32, *dbus.Error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	quiet, _ := hints["suppress-sound"].Value().(bool)
	n := note{summary, body, actions, replaces, quiet}
	f.got = append(f.got, n)
	id := replaces
	if _, ok := f.live[id]; !ok {
		f.last++
		id = f.last
	}
	if f.live == nil {
		f.live = map[uint32]note{}
	}
	f.live[id] = n
	return id, nil
}

func (f *fakeServer) CloseNotification(id uint32) *dbus.Error {
	f.mu.Lock()
	_, ok := f.live[id]
	delete(f.live, id)
	f.mu.Unlock()
	if ok {
		_ = f.conn.Emit(Path, Service+".NotificationClosed", id, uint32(3))
	}
	return nil
}

// shown is what the person sees now: each live notification's summary,
// sorted.
func (f *fakeServer) shown() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, n := range f.live {
		out = append(out, n.summary)
	}
	slices.Sort(out)
	return out
}

// dismiss closes notification id as the person would, and says so.
func (f *fakeServer) dismiss(t *testing.T, id uint32) {
	t.Helper()
	f.mu.Lock()
	delete(f.live, id)
	f.mu.Unlock()
	emit(t, f.conn, "NotificationClosed", id, uint32(2))
}

func (f *fakeServer) notes() []note {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.got)
}

func connect(t *testing.T, addr string) *dbus.Conn {
	t.Helper()
	c, err := dbus.Connect(addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func startServer(t *testing.T, addr string, caps ...string) *fakeServer {
	t.Helper()
	f := &fakeServer{conn: connect(t, addr), caps: caps}
	if err := f.conn.Export(f, Path, Service); err != nil {
		t.Fatal(err)
	}
	if reply, err := f.conn.RequestName(Service, dbus.NameFlagDoNotQueue); err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("own %s: %v %v", Service, reply, err)
	}
	return f
}

// emit sends a notification signal from conn, as the server would.
func emit(t *testing.T, conn *dbus.Conn, member string, id uint32, arg any) {
	t.Helper()
	if err := conn.Emit(Path, Service+"."+member, id, arg); err != nil {
		t.Fatal(err)
	}
}

// actions collects OnAction calls.
type actions struct {
	mu  sync.Mutex
	got []string
}

func (a *actions) on(key, action string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.got = append(a.got, key+" "+action)
}

func (a *actions) list() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.got)
}

// TestSendActions: with a server that supports actions a request's
// notification carries Open and Deny, never an allow; a notice carries
// none.
func TestSendActions(t *testing.T) {
	addr := startBus(t)
	srv := startServer(t, addr, "body", "actions")
	n := New(Options{Address: addr, AppName: "pathgrant", Plain: func(string, string) error {
		t.Error("plain fallback used with a server that supports actions")
		return nil
	}})
	defer n.Close()
	if !n.Actions() {
		t.Fatal("actions not used")
	}
	if err := n.Send("req1", "pathgrant: approval needed", "Claude wants to read ~/Downloads/a.csv"); err != nil {
		t.Fatal(err)
	}
	if err := n.Send("", "pathgrant is running", "notice"); err != nil {
		t.Fatal(err)
	}
	got := srv.notes()
	if len(got) != 2 || !slices.Equal(got[0].actions, []string{"default", "Open", "deny", "Deny"}) || len(got[1].actions) != 0 {
		t.Fatalf("notifications %+v", got)
	}
	for _, a := range got[0].actions {
		if strings.Contains(strings.ToLower(a), "allow") || strings.Contains(strings.ToLower(a), "approve") {
			t.Fatalf("an approving action %q", a)
		}
	}
}

// TestActionSender: only the service's owner, for a notification this
// Notifier sent, triggers an action, once; a forged signal from another
// connection, an unknown id and a closed notification trigger nothing.
func TestActionSender(t *testing.T) {
	addr := startBus(t)
	srv := startServer(t, addr, "actions")
	forger := connect(t, addr)
	got := &actions{}
	n := New(Options{Address: addr, OnAction: got.on})
	defer n.Close()
	for _, key := range []string{"req1", "req2", "req3"} { // ids 1, 2, 3
		if err := n.Send(key, "t", "b"); err != nil {
			t.Fatal(err)
		}
	}
	steps := []struct {
		name   string
		conn   *dbus.Conn
		member string
		id     uint32
		arg    any
		want   []string
	}{
		{"forged deny from another connection", forger, "ActionInvoked", 1, "deny", nil},
		{"unknown id from the server", srv.conn, "ActionInvoked", 99, "deny", nil},
		{"deny from the server", srv.conn, "ActionInvoked", 1, "deny", []string{"req1 deny"}},
		{"the same deny again", srv.conn, "ActionInvoked", 1, "deny", []string{"req1 deny"}},
		{"open from the server", srv.conn, "ActionInvoked", 2, "default", []string{"req1 deny", "req2 default"}},
		{"forged close does not forget", forger, "NotificationClosed", 3, uint32(2), []string{"req1 deny", "req2 default"}},
		{"closed by the server", srv.conn, "NotificationClosed", 3, uint32(2), []string{"req1 deny", "req2 default"}},
		{"action after close", srv.conn, "ActionInvoked", 3, "deny", []string{"req1 deny", "req2 default"}},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			emit(t, st.conn, st.member, st.id, st.arg)
			// A signal the bus delivers after this one shows this one
			// was handled: the server's own unknown close.
			emit(t, srv.conn, "NotificationClosed", 1000, uint32(1))
			time.Sleep(100 * time.Millisecond)
			if list := got.list(); !slices.Equal(list, st.want) {
				t.Fatalf("actions %q, want %q", list, st.want)
			}
		})
	}
}

// TestPlainFallback: a server without actions, or no server at all, gets
// a plain notification.
func TestPlainFallback(t *testing.T) {
	addr := startBus(t)
	tests := []struct {
		name   string
		server bool
	}{{"no actions", true}, {"no server", false}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var srv *fakeServer
			if tt.server {
				srv = startServer(t, addr, "body")
			}
			var plain []string
			n := New(Options{Address: addr, Plain: func(title, body string) error {
				plain = append(plain, title+": "+body)
				return nil
			}})
			defer n.Close()
			if err := n.Send("req1", "pathgrant: approval needed", "b"); err != nil {
				t.Fatal(err)
			}
			if n.Actions() || len(plain) != 1 || (srv != nil && len(srv.notes()) != 0) {
				t.Fatalf("actions %v, plain %q", n.Actions(), plain)
			}
			if srv != nil {
				_, _ = srv.conn.ReleaseName(Service)
			}
		})
	}
}

// TestBodyMarkupEscaped: a server that renders body markup gets the body
// escaped, so an agent's path or name cannot restyle or hide text; one
// that does not gets it as it is.
func TestBodyMarkupEscaped(t *testing.T) {
	for _, tc := range []struct {
		caps []string
		want string
	}{
		{[]string{"body", "body-markup", "actions"}, `read &lt;span size="1"&gt;x&lt;/span&gt; &amp; more`},
		{[]string{"body", "actions"}, `read <span size="1">x</span> & more`},
	} {
		t.Run(strings.Join(tc.caps, ","), func(t *testing.T) {
			addr := startBus(t)
			srv := startServer(t, addr, tc.caps...)
			n := New(Options{Address: addr})
			defer n.Close()
			if err := n.Send("req1", "t", `read <span size="1">x</span> & more`); err != nil {
				t.Fatal(err)
			}
			if notes := srv.notes(); len(notes) != 1 || notes[0].body != tc.want {
				t.Fatalf("sent %+v, want body %q", notes, tc.want)
			}
		})
	}
}
