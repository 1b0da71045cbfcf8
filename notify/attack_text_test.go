package notify

import (
	"slices"
	"testing"
	"time"
)

// What someone with the agent's keyboard tried (each TestAttackText* is one
// attempt, and passes while it fails).

// TestAttackTextNewOwnerActsOnOldServersNotification: the Notifier keeps
// the ids the old notification server gave, keyed by id alone, after
// another connection takes the service name. The new owner (an agent that
// grabbed org.freedesktop.Notifications when the real server exited or
// restarted) becomes "the owner" at the next Send and may then invoke
// Deny on a notification id it never issued: the request behind the old
// server's notification is denied. Denial only (no approval path), but
// the sender check promises an action only "for a notification it sent"
// to that server.
func TestAttackTextNewOwnerActsOnOldServersNotification(t *testing.T) {
	addr := startBus(t)
	real := startServer(t, addr, "actions")
	got := &actions{}
	n := New(Options{Address: addr, OnAction: got.on})
	defer n.Close()
	for _, key := range []string{"req1", "req2"} { // the real server's ids 1 and 2
		if err := n.Send(key, "t", "b"); err != nil {
			t.Fatal(err)
		}
	}
	// The real server goes away; the agent's process takes the name.
	if _, err := real.conn.ReleaseName(Service); err != nil {
		t.Fatal(err)
	}
	_ = real.conn.Close()
	evil := startServer(t, addr, "actions")
	// The next request's notification goes to the agent's server (its id 1).
	if err := n.Send("req3", "t", "b"); err != nil {
		t.Fatal(err)
	}
	// The agent invokes Deny on id 2, which only the old server issued.
	emit(t, evil.conn, "ActionInvoked", 2, "deny")
	emit(t, evil.conn, "NotificationClosed", 1000, uint32(1))
	time.Sleep(200 * time.Millisecond)
	if list := got.list(); slices.Contains(list, "req2 deny") {
		t.Fatalf("the new owner of %s denied req2, whose notification the old server sent: actions %q", Service, list)
	}
}
