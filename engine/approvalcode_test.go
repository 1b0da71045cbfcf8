package engine

import (
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"pathgrant/grants"
	"pathgrant/guard"
	"pathgrant/wire"
)

// TestApprovalCodeAlphabet: codes are codeLen symbols of the unambiguous
// alphabet, and differ from one request to the next.
func TestApprovalCodeAlphabet(t *testing.T) {
	seen := map[string]bool{}
	for range 2000 {
		c := newApprovalCode()
		if len(c) != codeLen || strings.ContainsAny(c, "0O1Il") || strings.Trim(c, codeAlphabet) != "" {
			t.Fatalf("code %q", c)
		}
		seen[c] = true
	}
	if len(seen) < 1990 {
		t.Fatalf("%d distinct codes of 2000", len(seen))
	}
}

var (
	codeFile   = guard.Scope{Op: guard.OpRead, Path: "/d/x.csv", Kind: guard.KindFile}
	codeFolder = guard.Scope{Op: guard.OpRead, Path: "/d", Kind: guard.KindFolder}
	codeWrite  = guard.Scope{Op: guard.OpWrite, Path: "/d/x", Kind: guard.KindFile}
	offerAll   = func(guard.Op, string, bool) bool { return true }
	offerNone  = func(guard.Op, string, bool) bool { return false }
)

// TestChoicesFor: a request offers once and session, device for a read,
// the suggested target and a file's folder when it may be granted, each
// durable scope at each duration of its menu; and each choice gets its
// own code.
func TestChoicesFor(t *testing.T) {
	tests := []struct {
		name  string
		sug   guard.Scope
		offer func(guard.Op, string, bool) bool
		want  []string
	}{
		{"a read of a file whose folder may be granted", codeFile, offerAll, []string{
			"once", "once+folder",
			"session", "session+15m", "session+1h", "session+8h",
			"session+folder", "session+folder+15m", "session+folder+1h", "session+folder+8h",
			"device", "device+1h", "device+8h", "device+168h",
			"device+folder", "device+folder+1h", "device+folder+8h", "device+folder+168h"}},
		{"a read of a file whose folder may not", codeFile, offerNone, []string{
			"once", "session", "session+15m", "session+1h", "session+8h", "device", "device+1h", "device+8h", "device+168h"}},
		{"a suggested folder", codeFolder, offerAll, []string{
			"once+folder", "session+folder", "session+folder+15m", "session+folder+1h", "session+folder+8h",
			"device+folder", "device+folder+1h", "device+folder+8h", "device+folder+168h"}},
		{"a write: no device grant", codeWrite, offerNone, []string{"once", "session", "session+15m", "session+1h", "session+8h"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			choices := choicesFor(tt.sug, tt.offer)
			var got []string
			for _, c := range choices {
				got = append(got, c.Key())
			}
			if strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Fatalf("choices %v, want %v", got, tt.want)
			}
			lock, codes := newCodeLock("r1", choices)
			seen := map[string]bool{}
			for _, cc := range codes {
				if seen[cc.Code] {
					t.Fatalf("code %s given to two choices", cc.Code)
				}
				seen[cc.Code] = true
				if c, ok := lock.match(codeDigest("r1", strings.ToLower(cc.Code))); !ok || c != cc.Choice {
					t.Fatalf("code of %s matches %v %v", cc.Key(), c, ok)
				}
			}
			if _, ok := lock.match(codeDigest("r2", codes[0].Code)); ok {
				t.Fatal("a code matched for another request")
			}
		})
	}
}

// codeEngine is an engine with a store and no sessions: a request put in
// its queue is decided by DecideWithCode up to the session check, which
// fails (Gone) only once the code has let the approval through.
func codeEngine(t *testing.T) *Engine {
	t.Helper()
	root := t.TempDir()
	st, err := grants.Open(filepath.Join(root, "pathgrant.db"), grants.Options{MachineID: "test", NoWatch: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return New(Config{Store: st, Home: root, Getenv: func(string) string { return "" },
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
}

// TestCodeBuysItsChoice: a code approves the one choice it was shown
// beside, and nothing wider: not another scope (a once code makes no
// session or device grant), not the folder for a file's code, not longer
// than its duration (nor unlimited when it was limited). A narrower
// duration is within it. A refusal keeps the request pending and is no
// wrong try.
func TestCodeBuysItsChoice(t *testing.T) {
	tests := []struct {
		name string
		sug  guard.Scope
		code string // the key of the choice whose code is presented
		dec  wire.Decision
		ok   bool
	}{
		{"once code, once", codeFile, "once", wire.Decision{Scope: "once"}, true},
		{"once code, the file named", codeFile, "once", wire.Decision{Scope: "once", Kind: guard.KindFile}, true},
		{"once code, session", codeFile, "once", wire.Decision{Scope: "session"}, false},
		{"once code, device", codeFile, "once", wire.Decision{Scope: "device"}, false},
		{"once code, the folder", codeFile, "once", wire.Decision{Scope: "once", Kind: guard.KindFolder}, false},
		{"file code, the folder for the session", codeFile, "session", wire.Decision{Scope: "session", Kind: guard.KindFolder}, false},
		{"folder code, the folder", codeFile, "session+folder", wire.Decision{Scope: "session", Kind: guard.KindFolder}, true},
		{"folder code, the file", codeFile, "session+folder", wire.Decision{Scope: "session", Kind: guard.KindFile}, false},
		{"session code, session", codeFile, "session", wire.Decision{Scope: "session"}, true},
		{"session code, a shorter session", codeFile, "session", wire.Decision{Scope: "session", For: "1h"}, true},
		{"session code, device", codeFile, "session", wire.Decision{Scope: "device"}, false},
		{"session code, once", codeFile, "session", wire.Decision{Scope: "once"}, false},
		{"1h code, 1h", codeFile, "session+1h", wire.Decision{Scope: "session", For: "1h"}, true},
		{"1h code, 30m", codeFile, "session+1h", wire.Decision{Scope: "session", For: "30m"}, true},
		{"1h code, 8h", codeFile, "session+1h", wire.Decision{Scope: "session", For: "8h"}, false},
		{"1h code, until the session ends", codeFile, "session+1h", wire.Decision{Scope: "session"}, false},
		{"device 8h code, 7 days", codeFile, "device+8h", wire.Decision{Scope: "device", For: "168h"}, false},
		{"device 8h code, always", codeFile, "device+8h", wire.Decision{Scope: "device"}, false},
		{"device 8h code, the folder for 8h", codeFile, "device+8h", wire.Decision{Scope: "device", Kind: guard.KindFolder, For: "8h"}, false},
		{"device code, always", codeFile, "device", wire.Decision{Scope: "device"}, true},
		{"device code, a session", codeFile, "device", wire.Decision{Scope: "session"}, false},
		{"suggested folder, its once code", codeFolder, "once+folder", wire.Decision{Scope: "once"}, true},
		{"suggested folder, once code for the session", codeFolder, "once+folder", wire.Decision{Scope: "session", Kind: guard.KindFolder}, false},
		{"write, session code for a device grant", codeWrite, "session", wire.Decision{Scope: "device"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := codeEngine(t)
			o, err := s.queue.submit(wire.Request{Session: "gone", Op: tt.sug.Op, Path: tt.sug.Path, Suggested: tt.sug},
				choicesFor(tt.sug, offerAll), time.Time{}, "")
			if err != nil {
				t.Fatal(err)
			}
			code := codeOf(t, o.codes, tt.code)
			tt.dec.Code = code
			_, derr := s.DecideWithCode(o.req.ID, tt.dec)
			switch {
			case derr == nil:
				t.Fatal("approved a request of no session")
			case tt.ok && derr.Code != Gone:
				t.Fatalf("the code of %s for %+v: %v, want it let through", tt.code, tt.dec, derr)
			case !tt.ok && (derr.Code != Forbidden || derr.Kind != grants.KindCode):
				t.Fatalf("the code of %s for %+v: %v, want it refused", tt.code, tt.dec, derr)
			case !tt.ok && strings.Contains(derr.Msg, code):
				t.Fatalf("the refusal repeats the code: %s", derr.Msg)
			}
			if r, _ := s.Request(o.req.ID); r.State != wire.StatePending {
				t.Fatalf("state %s, want still pending", r.State)
			}
			if c := s.queue.tryCode(o.req.ID, code); !c.ok || c.wrong != 0 {
				t.Fatalf("after the refusal the code is %+v, want it good and no wrong try", c)
			}
		})
	}
}

// codeOf is the code of the choice named key.
func codeOf(t *testing.T, codes []wire.ChoiceCode, key string) string {
	t.Helper()
	for _, c := range codes {
		if c.Key() == key {
			return c.Code
		}
	}
	t.Fatalf("no choice %s among %s", key, wire.CodesText(codes))
	return ""
}
