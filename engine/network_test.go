package engine

import (
	"context"
	"net/netip"
	"os"
	"strings"
	"testing"
	"time"

	"pathgrant/guard"
	"pathgrant/netproxy"
	"pathgrant/wire"
)

// connectSession is an engine and one interactive session, and the asker
// of one of its commands' connections.
func connectSession(t *testing.T) (*Engine, connectAsker) {
	t.Helper()
	e := codeEngine(t)
	root := t.TempDir()
	resp, err := e.Register(wire.SessionRequest{Agent: "claude", Cwd: root, Workspace: []string{root}}, "", newLineage(int32(os.Getpid())))
	if err != nil {
		t.Fatalf("register: %v", err)
	}
	sess := e.sessions.get(resp.ID)
	if sess == nil {
		t.Fatal("the session is not there")
	}
	return e, connectAsker{s: e, sess: sess, by: "test command"}
}

// askInBackground asks about d, and returns the request it raised and
// where the answer comes.
func askInBackground(t *testing.T, e *Engine, a connectAsker, d netproxy.Destination) (wire.Request, chan error) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- a.AskConnect(context.Background(), d) }()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if ps := e.Pending(); len(ps) == 1 {
			return ps[0], done
		}
		select {
		case err := <-done:
			t.Fatalf("answered without a request: %v", err)
		case <-time.After(10 * time.Millisecond):
		}
	}
	t.Fatal("no request raised")
	return wire.Request{}, nil
}

func answer(t *testing.T, done chan error) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(5 * time.Second):
		t.Fatal("the connection still waits after the decision")
		return nil
	}
}

// TestConnectAsked: a destination the device policy leaves to the person
// becomes one request, named as the proxy spells it, the connection
// waiting; the person's decision answers it. A session or device grant
// lets the next connection through without asking; a once grant does
// not outlive its connection; a denial for the session refuses at once
// from then on; a folder is never granted.
func TestConnectAsked(t *testing.T) {
	dest := netproxy.Destination{Host: "Git.Corp.Example.", Port: 443}
	tests := []struct {
		name    string
		dec     wire.Decision
		allowed bool
		again   string // the next connection: "allowed", "asked" or "refused"
	}{
		{"allowed once", wire.Decision{Scope: "once"}, true, "asked"},
		{"allowed for the session", wire.Decision{Scope: "session"}, true, "allowed"},
		{"allowed for an hour", wire.Decision{Scope: "session", For: "1h"}, true, "allowed"},
		{"always on this device", wire.Decision{Scope: "device"}, true, "allowed"},
		{"denied", wire.Decision{Scope: "deny"}, false, "asked"},
		{"denied for the session", wire.Decision{Scope: "deny", Remember: true}, false, "refused"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, a := connectSession(t)
			r, done := askInBackground(t, e, a, dest)
			if r.Op != guard.OpConnect || r.Path != "git.corp.example:443" || r.Tool != ConnectTool {
				t.Fatalf("request: %s %q by %q; want connect git.corp.example:443 by %q", r.Op, r.Path, r.Tool, ConnectTool)
			}
			if _, err := e.Decide(r.ID, tt.dec); err != nil {
				t.Fatalf("decide: %v", err)
			}
			if err := answer(t, done); (err == nil) != tt.allowed {
				t.Fatalf("AskConnect after %+v: %v; want allowed %v", tt.dec, err, tt.allowed)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			defer cancel()
			err := a.AskConnect(ctx, dest)
			pending := len(e.Pending())
			got := "refused"
			switch {
			case err == nil:
				got = "allowed"
			case pending == 1 || strings.Contains(err.Error(), "pending"):
				got = "asked"
			}
			if got != tt.again {
				t.Errorf("the next connection: %s (%v, %d pending); want %s", got, err, pending, tt.again)
			}
		})
	}
}

// TestConnectNeverAFolder: a connection's request offers no folder, and
// a decision for one is refused, the request staying pending.
func TestConnectNeverAFolder(t *testing.T) {
	e, a := connectSession(t)
	r, done := askInBackground(t, e, a, netproxy.Destination{Host: "10.1.2.3", Port: 22})
	if r.Path != "10.1.2.3:22" {
		t.Fatalf("request path %q", r.Path)
	}
	if _, err := e.Decide(r.ID, wire.Decision{Scope: "session", Kind: guard.KindFolder}); err == nil {
		t.Fatal("a folder was granted for a connection")
	}
	if ps := e.Pending(); len(ps) != 1 {
		t.Fatalf("the request is gone after a refused decision: %+v", ps)
	}
	if _, err := e.Decide(r.ID, wire.Decision{Scope: "deny"}); err != nil {
		t.Fatal(err)
	}
	if err := answer(t, done); err == nil {
		t.Fatal("denied, yet allowed")
	}
}

// TestCheckRefusesConnect: no check route asks about a connection: only
// the daemon's proxy does, for a command's own namespace.
func TestCheckRefusesConnect(t *testing.T) {
	e, a := connectSession(t)
	_, err := e.Check(context.Background(), Call{sess: a.sess}, wire.CheckRequest{Op: guard.OpConnect, Path: "example.com:443"})
	if err == nil || err.Code != BadRequest {
		t.Fatalf("a check of a connection: %v; want a bad request", err)
	}
	if ps := e.Pending(); len(ps) != 0 {
		t.Fatalf("a check raised a connection request: %+v", ps)
	}
}

// TestConnectRequestShowsAddresses: a request about a name shows what
// the proxy resolved it to, each address with its class, since the name
// alone does not say why it is asked: a public-looking name the
// command chose may be a host on the person's own network. An address
// shows itself.
func TestConnectRequestShowsAddresses(t *testing.T) {
	tests := []struct {
		name string
		dest netproxy.Destination
		want string
	}{
		{"a name resolving to a private address", netproxy.Destination{Host: "build.example.com", Port: 443,
			Addrs: []netip.Addr{netip.MustParseAddr("192.168.1.1")}}, "build.example.com resolves to 192.168.1.1 (private)"},
		{"a name resolving to several", netproxy.Destination{Host: "mixed.example.com", Port: 22,
			Addrs: []netip.Addr{netip.MustParseAddr("93.184.216.34"), netip.MustParseAddr("fd00::7")}},
			"mixed.example.com resolves to 93.184.216.34 (public), fd00::7 (private)"},
		{"an address", netproxy.Destination{Host: "10.1.2.3", Port: 22, Addrs: []netip.Addr{netip.MustParseAddr("10.1.2.3")}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, a := connectSession(t)
			r, done := askInBackground(t, e, a, tt.dest)
			if r.Input != tt.want {
				t.Errorf("request input %q, want %q", r.Input, tt.want)
			}
			if _, err := e.Decide(r.ID, wire.Decision{Scope: "deny"}); err != nil {
				t.Fatal(err)
			}
			answer(t, done)
		})
	}
}

// TestNetChannelTakesItsTicket: the way out of a command's namespace is
// handed over only with that command's net ticket, by the front end it
// was issued to; another kind of ticket, none, or another process's
// presentation is forged.
func TestNetChannelTakesItsTicket(t *testing.T) {
	e, a := connectSession(t)
	me := newLineage(int32(os.Getpid()))
	self, ok := me.Peer()
	if !ok {
		t.Fatal("cannot read this process")
	}
	other := self
	other.PID++
	tests := []struct {
		name string
		cap  *capEntry
		ok   bool
	}{
		{"its own front end, its net ticket", &capEntry{kind: CapNet, session: a.sess.ID, holder: self}, true},
		{"no ticket", nil, false},
		{"a hold ticket", &capEntry{kind: CapHold, session: a.sess.ID, holder: self}, false},
		{"a report ticket", &capEntry{kind: CapReport, session: a.sess.ID, holder: self}, false},
		{"another process's net ticket", &capEntry{kind: CapNet, session: a.sess.ID, holder: other}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			serve, err := e.NetChannel(Call{sess: a.sess, caller: newLineage(int32(os.Getpid())), cap: tt.cap})
			if got := err == nil && serve != nil; got != tt.ok {
				t.Fatalf("NetChannel: %v (serve %v); want taken %v", err, serve != nil, tt.ok)
			}
			if err != nil && err.Code != Forbidden {
				t.Errorf("refused with %v, want forbidden", err.Code)
			}
		})
	}
}
