package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"pathgrant/guard"
	"pathgrant/wire"
)

// What someone with the agent's keyboard tried (each TestAttackText* is one
// attempt, and passes while it fails).

// TestAttackTextPendingPrintsTerminalEscapes: `pathgrant pending` prints
// each request's path raw to the person's terminal. The guard accepts any
// byte in a path but NUL, and a read of a file that does not exist under
// an eligible root is still a request, so an agent picks the bytes: an
// ESC sequence that moves the cursor up and rewrites the row above (the
// real request's id beside a harmless path), or OSC 52, which sets the
// clipboard in many terminals. Paths (and any other request text) should
// be printed quoted or with control characters escaped.
func TestAttackTextPendingPrintsTerminalEscapes(t *testing.T) {
	now := time.Now()
	real := wire.Request{ID: "aaaaaaaa1111", Session: "s1", Op: guard.OpRead, Path: "/home/u/Documents/passwords.kdbx", Count: 1, Created: now}
	decoy := wire.Request{ID: "bbbbbbbb2222", Session: "s1", Op: guard.OpRead, Count: 1, Created: now,
		Path: "/home/u/Downloads/x\r\x1b[1A\x1b[2Kaaaaaaaa1111  s1  read  /home/u/Downloads/readme.txt\x1b]52;c;cGF0aGdyYW50IGFwcHJvdmU=\a"}
	var out bytes.Buffer
	if err := writeRequestsTable(&out, []wire.Request{real, decoy}, now); err != nil {
		t.Fatal(err)
	}
	if s := out.String(); strings.ContainsAny(s, "\x1b\r\a") {
		t.Fatalf("pending prints terminal control bytes from an agent's path: %q", s)
	}
}
